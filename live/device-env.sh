# Sourced by live/*-on-device.sh (run from the repository root on the device machine): `bin`, the gpusched-live to
# run (build/live/gpusched-live unless the script set it first), with LD_LIBRARY_PATH pointing at build/live/lib
# where the binary needs the libraries carried there (the device has no Debian development packages); `out`, $OUT
# or /tmp/out, created; `suite_kernels` and `suite_sizes`, the live suite's kernels and sizes (KERNELS, SIZES to narrow
# them).
bin=${bin:-build/live/gpusched-live}
if ldd "$bin" | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/build/live/lib; fi
out=${OUT:-/tmp/out}
mkdir -p "$out"
suite_kernels=${KERNELS:-blackscholes gather histogram mriq sad sgemm spmv stencil xtea}
suite_sizes=${SIZES:-s1 s2}
