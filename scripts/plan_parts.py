"""The plan's cut as `gpusched as-priorities --parts-csv` writes it, read for scripts/part-lateness.py and
scripts/parts-at.py, which lay an execution's pieces over it (docs/validation.md, "Events behind parts" and "Grids the
GPU starts a second")."""
import csv
from collections import defaultdict

COLUMNS = ("policy", "launch", "block", "part", "start_ns", "end_ns")


class PlanError(Exception):
    """A parts CSV that cannot be read: the message names the file, and the line and field where there is one."""


def read_plan_parts(path, policy):
    """(launch, block) -> [(start_ns, end_ns, part)] of `policy`'s rows, each block's pieces by planned start."""
    plan = defaultdict(list)
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            for column in COLUMNS:
                if column not in (reader.fieldnames or []):
                    raise PlanError(f"{path}: line 1: no '{column}' column")
            for row in reader:
                if row["policy"] != policy:
                    continue
                values = {}
                for field in COLUMNS[1:]:
                    try:
                        values[field] = int(row[field])
                    except (TypeError, ValueError):
                        raise PlanError(
                            f"{path}: line {reader.line_num}: field '{field}': not an integer: {row[field]!r}") from None
                plan[(values["launch"], values["block"])].append((values["start_ns"], values["end_ns"], values["part"]))
    except OSError as e:
        raise PlanError(f"{path}: {e.strerror}") from None
    if not plan:
        raise PlanError(f"{path}: no rows of policy '{policy}'")
    return {key: sorted(pieces) for key, pieces in plan.items()}


def piece_parts(plan):
    """(launch, block) -> [part of its k-th planned piece]: an executed block's k-th piece by start belongs there."""
    return {key: [part for _, _, part in pieces] for key, pieces in plan.items()}
