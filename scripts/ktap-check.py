#!/usr/bin/env python3
"""Check KTAP/TAP output from KUnit (kernel log) or the kselftest runner.

    ktap-check.py kunit    LOG SUITE...    every SUITE ran, no case failed
    ktap-check.py kselftest LOG TEST...    every TEST ran and passed, no skip
    ktap-check.py tap LOG                  a selftest run directly: its own
                                           result lines are the cases
    ktap-check.py regress BASE LOG [--accept-slow CASE]...
                                           the same selftest run twice: every
                                           case that passed in BASE passes in
                                           LOG (cases failing in both are
                                           listed, not counted).  An
                                           --accept-slow CASE (a simult_flows
                                           title) may fail only by being slow:
                                           at most SLOW_PCT % over its time
                                           bound, with all its data through

Counts the test cases (nested result lines); a failed or skipped result at
any level is a failure.  Prints each result and a closing 'N passed, N
failed' line; exits 1 on any failure, a missing suite/test, or no pass.
"""
import re
import sys

# "[    1.234567]     ok 1 name # SKIP why"  (dmesg timestamp optional,
# kselftest nesting as "# " prefixes)
LINE = re.compile(r'^(?:\[\s*[\d.]+\]\s)?((?:#\s)*)(\s*)(not ok|ok)\s+(\d+)\s*-?\s*(.*)$')


def results(path):
    with open(path, errors='replace') as f:
        for raw in f:
            m = LINE.match(raw.rstrip('\n'))
            if m:
                nest = m.group(1).count('#') + len(m.group(2)) // 4
                name, _, directive = m.group(5).partition(' # ')
                yield nest, m.group(3) == 'ok', name.strip(), directive.strip()


SLOW_PCT = 10
SIZE = re.compile(r'^(?:#\s)?-[-rwxsStT]{9}\S*\s+\d+\s+\S+\s+\S+\s+(\d+)\s')
TITLE = re.compile(r'^(?:#\s)?\d{2,3} \S')


def slow_only(log, name):
    """Did simult_flows case NAME fail only by its time bound, by at most
    SLOW_PCT %, with every file through?  Its title line carries
    mptcp_connect's 'transfer slower than expected' error, and the failure
    report lists the four files (ls -l): sent and received sizes must pair
    up.  Returns a reason it did not, or None."""
    title = name.split(': ', 1)[-1]
    head = re.compile(r'^(?:#\s)?\d{2,3} ' + re.escape(title) +
                      r'\s*transfer slower than expected!')
    with open(log, errors='replace') as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if not head.match(line):
            continue
        # both ends may report, on the same line
        for runtime, bound in re.findall(r'runtime (\d+) ms, expected (\d+) ms',
                                         line):
            if int(runtime) * 100 > int(bound) * (100 + SLOW_PCT):
                return (f'{runtime} ms, more than {SLOW_PCT} % over '
                        f'{bound} ms')
        sizes = []
        for nxt in lines[i + 1:]:
            if TITLE.match(nxt):
                break
            sm = SIZE.match(nxt)
            if sm:
                sizes.append(int(sm.group(1)))
        sizes.sort()
        if len(sizes) != 4 or sizes[0] != sizes[1] or sizes[2] != sizes[3]:
            return f'file sizes {sizes} do not pair up: data missing'
        return None
    return 'no "transfer slower than expected" on its line: it failed otherwise'


def regress(base, log, slow_ok=()):
    """Cases of LOG that fail although they passed in BASE."""
    def outcome(path):
        return {name: ok and not d.upper().startswith('SKIP')
                for _, ok, name, d in results(path)}
    before, after = outcome(base), outcome(log)
    bad = accepted = 0
    for name, ok in after.items():
        why = None
        if not ok and before.get(name) and name in slow_ok:
            why = slow_only(log, name)
        if ok:
            print(f'ok:   {name}')
        elif before.get(name) and name in slow_ok and why is None:
            accepted += 1
            print(f'ACCEPTED: {name} (passes in {base}; over its time bound '
                  f'by at most {SLOW_PCT} %, data through: a documented '
                  'cost of FUSO, see Documentation/testing.md)')
        elif why:
            bad += 1
            print(f'FAIL: {name} (passes in {base}; accepted only if slow, '
                  f'but: {why})')
        elif before.get(name):
            bad += 1
            print(f'FAIL: {name} (passes in {base})')
        else:
            print(f'known: {name} (fails in {base} too)')
    for name, ok in before.items():
        if ok and name not in after:
            bad += 1
            print(f'FAIL: {name} passed in {base} but did not run in {log}')
    if not any(after.values()):
        bad += 1
        print(f'FAIL: no passing result in {log}')
    known = sum(1 for n, ok in after.items() if not ok and not before.get(n))
    print(f'regress: {sum(after.values())} passed, {bad} regressed, '
          f'{accepted} accepted, {known} failing in both runs')
    sys.exit(1 if bad else 0)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'regress':
        opts = sys.argv[4:]
        if len(opts) % 2 or any(o != '--accept-slow' for o in opts[::2]):
            sys.exit(__doc__)
        regress(sys.argv[2], sys.argv[3], set(opts[1::2]))
    if len(sys.argv) < 3 or sys.argv[1] not in ('kunit', 'kselftest', 'tap'):
        sys.exit(__doc__)
    mode, log, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
    passed = failed = 0
    seen = set()
    for nest, ok, name, directive in results(log):
        skip = directive.upper().startswith('SKIP')
        top = nest == 0 and mode != 'tap'
        if top:
            key = name.split(': ')[-1] if mode == 'kselftest' else name
            seen.add(key)
        if not ok or skip:
            failed += 1
            print(f'FAIL: {"  " * nest}{name} {directive}'.rstrip())
        elif not top:
            passed += 1
            print(f'ok:   {"  " * nest}{name} {directive}'.rstrip())
    for w in wanted:
        if w not in seen:
            failed += 1
            print(f'FAIL: {w} did not run (no result line in {log})')
    if passed == 0:
        failed += 1
        print(f'FAIL: no passing result in {log}')
    print(f'{mode}: {passed} passed, {failed} failed')
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
