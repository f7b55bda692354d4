#!/usr/bin/env python3
"""Executed instructions per step by source line, from the QEMU plugin's block profile.

tools/insn_count.c with `profile=N,profile_section=K` prints, for the N hottest translated
blocks of section K, `PROFILE <start> <instructions in windows> <block length>`. This spreads
each block's count over its instructions, maps every instruction to its source line through
the image's line tables (llvm-symbolizer, inlined frames included) and prints instructions per
step: per line (or `--by-function`, per function) of the innermost frame inside `--file`
(inlined helpers are charged to the line of that file that called them), and per kind (FPU arithmetic, FPU loads and stores, moves,
everything else).

The image needs line tables, which leave the code unchanged:
    CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --release ...
Usage:
    line_profile.py ELF PLUGIN_LOG SECTION [--file kernel/src/tree/dynamics.rs] [--top 40]
"""
import argparse
import bisect
import collections
import json
import re
import subprocess


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("elf")
    ap.add_argument("log", help="the plugin's output (-D file)")
    ap.add_argument("section", type=int)
    ap.add_argument("--file", default="kernel/src/tree/dynamics.rs")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--by-function", action="store_true", help="per function of --file, not per line")
    args = ap.parse_args()

    windows, blocks = None, []
    for line in open(args.log):
        m = re.match(r"INSN section (\d+): windows=(\d+)", line)
        if m and int(m.group(1)) == args.section:
            windows = int(m.group(2))
        if line.startswith("PROFILE"):
            fields = line.split()
            if len(fields) != 4:
                raise SystemExit("PROFILE lines without block lengths: rebuild tools/insn_count.c")
            blocks.append((int(fields[1], 16), int(fields[2]), int(fields[3])))
    if not windows:
        raise SystemExit(f"no section {args.section} in {args.log}")

    disassembly = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn", args.elf],
                                 capture_output=True, text=True, check=True).stdout
    mnemonic = {int(m.group(1), 16): m.group(2).split()[0]
                for m in re.finditer(r"^\s+([0-9a-f]+):\s+(\S.*)$", disassembly, re.M)}
    addresses = sorted(mnemonic)
    per_address = collections.Counter()
    for start, count, length in blocks:
        i = bisect.bisect_left(addresses, start)
        for a in addresses[i:i + length]:
            per_address[a] += count / length / windows

    hot = sorted(per_address)
    frames = json.loads(subprocess.run(
        ["llvm-symbolizer", "--output-style=JSON", "--obj=" + args.elf] + [hex(a) for a in hot],
        capture_output=True, text=True, check=True).stdout)
    by_line, kinds = collections.Counter(), collections.Counter()
    for a, entry in zip(hot, frames):
        stack = entry["Symbol"]
        mine = [f for f in stack if f["FileName"].endswith(args.file)]
        f = mine[0] if mine else stack[-1]
        where = f"{f['FileName'].split('/src/')[-1]}:{f['Line']}"
        if mine and args.by_function:
            where = re.sub(r"<[^<>]*>$", "", f["FunctionName"])
        if not mine:
            where += f" ({f['FunctionName'][:40]})"
        by_line[where] += per_address[a]
        op = mnemonic[a]
        kind = ("fpu arithmetic" if re.match(r"v(add|sub|mul|nmul|mla|mls|fma|fms|div|neg|sqrt|abs)", op)
                else "fpu load/store" if re.match(r"v(ldr|str|ldm|stm|push|pop)", op)
                else "move" if op.startswith("vmov") else "other")
        kinds[kind] += per_address[a]
    total = sum(per_address.values())
    print(f"{total:.0f} instructions per step (section {args.section}, {windows} steps); by kind: "
          + ", ".join(f"{k} {v:.0f}" for k, v in kinds.most_common()))
    for where, count in by_line.most_common(args.top):
        print(f"{count:9.0f}  {where}")


if __name__ == "__main__":
    main()
