#!/usr/bin/env bash
# Regenerates the paper-derived kernel profiles in traces/ from the numbers printed in the seeds' tables.
# Block times are drawn (seeded) and written to the files, so the shipped traces are fixed data; running
# this again with the same gpusched gives the same files. Usage: traces/make-paper-traces.sh [GPUSCHED]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
G=${1:-"$here/../build/sim/gpusched"}
gen() { "$G" gen profile "$@" >/dev/null; }

# --- (a) ERCBench kernels of seed 001 on the GTX480 preset -------------------------------------------
# Table 2 gives residency R, threads per block and blocks; Table 3 the mean block time (cycles) and its
# %RSD. Registers are chosen so the occupancy calculator gives R (docs/traces.md says how).
out="$here/ercbench"
gen --out "$out" --gpu gtx480 --seed 101 --name aes-d      --blocks 1429 --threads 256 --registers 20 --smem 4096 --mean-cycles 14529   --rsd 12.52
gen --out "$out" --gpu gtx480 --seed 102 --name aes-e      --blocks 1429 --threads 256 --registers 20 --smem 4096 --mean-cycles 14031   --rsd 12.1
gen --out "$out" --gpu gtx480 --seed 103 --name nlm2       --blocks 4096 --threads 64  --registers 20 --smem 0    --mean-cycles 19873   --rsd 2.87
gen --out "$out" --gpu gtx480 --seed 104 --name jpeg-d     --blocks 512  --threads 64  --registers 20 --smem 2048 --mean-cycles 5238    --rsd 29.58
gen --out "$out" --gpu gtx480 --seed 105 --name jpeg-e     --blocks 512  --threads 64  --registers 20 --smem 2048 --mean-cycles 5367    --rsd 32.95
gen --out "$out" --gpu gtx480 --seed 106 --name raytracing --blocks 2048 --threads 128 --registers 48 --smem 0    --mean-cycles 15167   --rsd 65.71
gen --out "$out" --gpu gtx480 --seed 107 --name sad        --blocks 1584 --threads 61  --registers 20 --smem 0    --mean-cycles 32332   --rsd 6.57
gen --out "$out" --gpu gtx480 --seed 108 --name sha1       --blocks 1539 --threads 64  --registers 20 --smem 0    --mean-cycles 1708531 --rsd 7.98

# --- (b) Chimera kernels of seed 003 Table 2 on the chimera-fermi preset -------------------------------
# Mean block time = 2 x the table's average drain time (a uniformly random preemption point waits half a
# block on average, section 2.4); context per block and blocks per SM from the table; idempotent kernels
# are idempotent throughout, the others until 90% of a block (relaxed idempotence, an interpretation).
# Grid: 8 full waves on 30 SMs (the paper does not give grid sizes). Block-time RSD 10% (not given).
out="$here/chimera"
chimera() {  # name drain_us context_kB tbs_per_sm idempotent(yes/no) seed
  local smem=$(( 49152 / $4 / 128 * 128 ))
  local idem=1.0; [ "$5" = no ] && idem=0.9
  gen --out "$out" --gpu chimera-fermi --seed "$6" --name "$1" --blocks $(( 30 * $4 * 8 )) --threads 128 \
      --registers 16 --smem "$smem" --mean-us "$(awk "BEGIN{print 2 * $2}")" --rsd 10 \
      --context-bytes $(( $3 * 1024 )) --idempotent-until "$idem"
}
chimera bs.0    60.9    24 4 yes 301
chimera bt.0    3.5     46 2 no  302
chimera bt.1    2.8     36 3 no  303
chimera bp.0    3.1     12 6 no  304
chimera bp.1    1.8     22 5 no  305
chimera cp.0    746.9   7  8 no  306
chimera fwt.0   2.3     21 5 no  307
chimera fwt.1   7.2     28 3 no  308
chimera fwt.2   321.8   18 6 no  309
chimera hw.0    5.2     67 2 no  310
chimera hs.0    4.5     38 3 yes 311
chimera km.0    424.3   10 6 yes 312
chimera km.1    118.8   12 6 yes 313
chimera lc.0    1162.0  17 7 yes 314
chimera lc.1    391.7   9  8 yes 315
chimera lc.2    10173.2 87 1 no  316
chimera lud.0   17.4    4  8 no  317
chimera lud.1   26.2    5  8 no  318
chimera lud.2   3.5     16 6 no  319
chimera mum.0   10212.8 18 6 yes 320
chimera mum.1   76.4    24 5 yes 321
chimera nw.0    18.2    8  8 no  322
chimera nw.1    18.7    8  8 no  323
chimera sad.0   42.3    7  8 yes 324
chimera sad.1   82.9    8  8 yes 325
chimera sad.2   19.7    2  8 yes 326
chimera st.0    122.3   11 8 yes 327

# --- (c) Kernelet kernels of seed 000 Tables 3-4 on the c2050 and gtx680 presets -----------------------
# Threads x blocks from Table 3; PUR, MUR from Table 4 (rows in Table 3's order); registers chosen to give
# Table 4's occupancy. The paper gives no run times, so each application's time alone is grounded in the same
# application recorded on the H100 by the live suite (PC = gather, SAD = sad, SPMV = spmv, ST = stencil,
# MM = sgemm, MRIQ = mriq, BS = blackscholes, TEA = xtea; size s1, the span of its highest-residency record set)
# times one factor per GPU, the H100's DRAM bandwidth over the paper GPU's (3350 / 144 for the C2050,
# 3350 / 192 for the GTX680). Block time = that time alone / waves (Table 3's blocks over SMs x residency).
# Instructions per block = PUR x peak IPC x block cycles / residency (peak IPC 1 on the C2050, 4 on the
# GTX680: four schedulers, dual issue not counted), so that the kernel's IPC alone is Table 4's PUR x peak.
# RSD 5%. (Until session 12 block times were derived from PUR with an assumed 100 instructions per thread,
# which made PC 98.5 % of the ALL mix's work.)
h100_span_ns() {  # suite kernel -> span of its s1 recording at the highest residency, ns
  local f
  f=$(for x in "$here/live/h100/$1-s1".r*.csv; do r=${x##*.r}; echo "${r%.csv} $x"; done | sort -n | tail -1 | cut -d' ' -f2)
  awk -F, 'NR > 1 { if (min == "" || $3 < min) min = $3; if ($4 > max) max = $4 } END { print max - min }' "$f"
}
kernelet() {  # gpu peak sms mhz dram_gbs name suite threads blocks regs pur mur residency seed
  local span cycles instr
  span=$(h100_span_ns "$7")
  cycles=$(awk -v s="$span" -v bw="$5" -v mhz="$4" -v b="$9" -v sms="$3" -v r="${13}" \
    'BEGIN { waves = int((b + sms * r - 1) / (sms * r)); printf "%.0f", s * 3350 / bw * mhz / 1000 / waves }')
  instr=$(awk -v c="$cycles" -v pur="${11}" -v peak="$2" -v r="${13}" 'BEGIN { printf "%.0f", pur * peak * c / r }')
  gen --out "$here/kernelet/$1" --gpu "$1" --seed "${14}" --name "$6" --blocks "$9" --threads "$8" --registers "${10}" \
      --mean-cycles "$cycles" --rsd 5 --pur "${11}" --mur "${12}" --instructions "$instr"
}
kernelet c2050 1 14 1147 144 pc   gather       256 16384 20 0.0096 0.1404 6 401
kernelet c2050 1 14 1147 144 sad  sad          32  8048  20 0.1498 0.1120 8 402
kernelet c2050 1 14 1147 144 spmv spmv         256 16384 20 0.3464 0.003  6 403
kernelet c2050 1 14 1147 144 st   stencil      128 16384 20 0.3629 0.1156 8 404
kernelet c2050 1 14 1147 144 mm   sgemm        256 16384 32 0.5804 0.0161 4 405
kernelet c2050 1 14 1147 144 mriq mriq         256 8192  24 0.8539 0.0002 5 406
kernelet c2050 1 14 1147 144 bs   blackscholes 128 16384 20 0.8642 0.0604 8 407
kernelet c2050 1 14 1147 144 tea  xtea         128 16384 20 0.9978 0.0196 8 408
kernelet gtx680 4 8 706 192 pc   gather       256 16384 32 0.0072 0.1746 8 411
kernelet gtx680 4 8 706 192 sad  sad          32  8048  32 0.1062 0.1351 16 412
kernelet gtx680 4 8 706 192 spmv spmv         256 16384 32 0.3027 0.0043 8 413
kernelet gtx680 4 8 706 192 st   stencil      128 16384 32 0.2016 0.1179 16 414
kernelet gtx680 4 8 706 192 mm   sgemm        256 16384 32 0.5321 0.0569 8 415
kernelet gtx680 4 8 706 192 mriq mriq         256 8192  32 1.6784 0.0007 8 416
kernelet gtx680 4 8 706 192 bs   blackscholes 128 16384 32 1.2007 0.1323 16 417
kernelet gtx680 4 8 706 192 tea  xtea         128 16384 32 1.1417 0.0353 16 418
echo "paper traces written under $here"
