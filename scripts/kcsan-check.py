#!/usr/bin/env python3
"""Sort the KCSAN reports of a test run on the KCSAN kernel.

    kcsan-check.py LOG...

LOG is the console log of scripts/vm --kcsan (with --allow-splat: a KCSAN
report is a "BUG:" line, which the runner would otherwise fail on).  Each
report is a block between two lines of '=' that starts with
"BUG: KCSAN: data-race in A / B" and lists both accesses' stacks.

A report is MPTCP's when a frame of either stack is in net/mptcp (a
function named mptcp_*, __mptcp_*, subflow_*, *fuso*), and FUSO's when a
frame names fuso; the others are races elsewhere in the kernel (TCP, the
scheduler, ...), listed but not counted against FUSO.

Prints every report's headline and class, then a closing line
'kcsan: N passed, N failed' (passed: LOG files without an MPTCP report).
Exits 1 on an MPTCP or FUSO report, on any other kernel report (WARNING,
BUG that is not KCSAN's, lockdep, ...), or when a LOG is missing.
"""
import re
import sys

SPLAT = re.compile(
    r'BUG:|WARNING:|KASAN:|UBSAN:|kmemleak: [0-9]+ new suspected|'
    r'possible circular locking|possible recursive locking|'
    r'inconsistent lock state|suspicious RCU usage|Kernel panic|Oops|'
    r'general protection fault|refcount_t:|list_(add|del) corruption|'
    r'hung_task|INFO: task .* blocked|detected stall|soft lockup|ref_tracker:')
HEAD = re.compile(r'BUG: KCSAN: (\S+) in (.*)$')
RULE = re.compile(r'^(?:\[\s*[\d.]+\]\s*)?={20,}\s*$')
# a stack frame: " func+0x12/0x34" (dmesg timestamp optional)
FRAME = re.compile(r'^(?:\[\s*[\d.]+\]\s*)?\s*([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+')
STAMP = re.compile(r'^\[\s*[\d.]+\]')
MPTCP = re.compile(r'^(__)?mptcp_|^subflow_|fuso')


def reports(path):
    """(headline, frames) of each KCSAN report; other report lines."""
    out, other = [], []
    block = None
    with open(path, errors='replace') as f:
        lines = [ln.rstrip('\n') for ln in f]
    # the runner prints the kernel log once more at the end: read it
    # only there when it is present, else the kernel's lines (with their
    # timestamps) of the console as it came
    start = [i for i, ln in enumerate(lines) if 'kernel log (reports found)' in ln]
    if start:
        lines = lines[start[-1]:]
    else:
        lines = [ln for ln in lines if STAMP.match(ln)]
    for ln in lines:
        h = HEAD.search(ln)
        if h:
            block = [h.group(1) + ' in ' + h.group(2), []]
            out.append(block)
            continue
        if block is not None:
            if RULE.match(ln):
                block = None
                continue
            m = FRAME.match(ln)
            if m:
                block[1].append(m.group(1))
            continue
        if RULE.match(ln):
            continue
        if SPLAT.search(ln):
            other.append(ln.strip())
    return out, other


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    passed = failed = 0
    bad_other = False
    for path in argv:
        try:
            reps, other = reports(path)
        except OSError as e:
            print(f'kcsan: cannot read {path}: {e}')
            failed += 1
            continue
        n_mptcp = 0
        for head, frames in reps:
            mp = [f for f in frames if MPTCP.search(f)]
            cls = 'FUSO' if any('fuso' in f for f in mp) else 'MPTCP' if mp else 'other'
            n_mptcp += cls != 'other'
            print(f'{path}: [{cls}] {head}')
            if cls != 'other':
                print('    frames: ' + ' '.join(frames[:24]))
        for ln in other:
            print(f'{path}: [report, not KCSAN] {ln}')
        bad_other |= bool(other)
        print(f'{path}: {len(reps)} KCSAN report(s), {n_mptcp} in MPTCP or FUSO code, '
              f'{len(other)} other kernel report line(s)')
        if n_mptcp or other:
            failed += 1
        else:
            passed += 1
    print(f'kcsan: {passed} passed, {failed} failed')
    return 1 if failed or bad_other else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
