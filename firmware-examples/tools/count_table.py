#!/usr/bin/env python3
"""The per-part instruction table of docs/firmware.md, from the output of `.ci/firmware`.

    bash .ci/firmware 2>&1 | tee firmware.log
    python3 firmware-examples/tools/count_table.py firmware.log

Prints one Markdown row per scenario: the instructions of a step on the M4F (mps2-an386) and
its budget, the time at the STM32F405's 168 MHz (one instruction a cycle: a lower bound), and
the instructions on the M7 (mps2-an500) and its budget. The counts are QEMU's, the same on
every machine, so the table is the log's, not a measurement of this one.
"""
import re
import sys

ROW = re.compile(r"^(\S.*?)\s+(\d+) instr/step\s+budget\s+(\S+).*?([\d.]+) us\s+max")
PART = re.compile(r"^-- (\S+) ")


def parts(lines):
    """{part: {scenario: (instructions, budget, µs)}} from the budget section of the log."""
    table, part, inside = {}, None, False
    for line in lines:
        if line.startswith("== firmware: executed instructions"):
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("== "):
            break
        if m := PART.match(line):
            part = table.setdefault(m.group(1), {})
        elif (m := ROW.match(line)) and part is not None:
            part[m.group(1)] = (int(m.group(2)), m.group(3), float(m.group(4)))
    return table


def grouped(n):
    return f"{int(n):,}" if str(n).isdigit() else n


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        table = parts(f.read().splitlines())
    m4f, clock, m7 = (table.get(p, {}) for p in ("mps2-an386", "stm32f405", "mps2-an500"))
    if not m4f:
        sys.exit("no budget section (== firmware: executed instructions …) in the log")
    print("| scenario | M4F instr./step | M4F budget | µs at 168 MHz (≥) | M7 instr./step | M7 budget |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (count, budget, _) in m4f.items():
        us = clock.get(name, (0, "", None))[2]
        m7_count, m7_budget, _ = m7.get(name, ("—", "—", None))
        print(
            f"| {name} | {grouped(count)} | {grouped(budget)} | {'—' if us is None else f'{us:,.0f}'} "
            f"| {grouped(m7_count)} | {grouped(m7_budget)} |"
        )


if __name__ == "__main__":
    main()
