#!/usr/bin/env python3
"""Check KTAP/TAP output from KUnit (kernel log) or the kselftest runner.

    ktap-check.py kunit    LOG SUITE...    every SUITE ran, no case failed
    ktap-check.py kselftest LOG TEST...    every TEST ran and passed, no skip
    ktap-check.py tap LOG                  a selftest run directly: its own
                                           result lines are the cases
    ktap-check.py regress BASE LOG [--accept CASE]...
                                           the same selftest run twice: every
                                           case that passed in BASE passes in
                                           LOG (cases failing in both are
                                           listed, not counted; an --accept
                                           CASE that regresses is listed as a
                                           documented cost, not counted)

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


def regress(base, log, accept=()):
    """Cases of LOG that fail although they passed in BASE."""
    def outcome(path):
        return {name: ok and not d.upper().startswith('SKIP')
                for _, ok, name, d in results(path)}
    before, after = outcome(base), outcome(log)
    bad = 0
    for name, ok in after.items():
        if ok:
            print(f'ok:   {name}')
        elif before.get(name) and name in accept:
            print(f'ACCEPTED: {name} (passes in {base}; a documented cost '
                  'of FUSO, see Documentation/testing.md)')
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
    accepted = sum(1 for n, ok in after.items()
                   if not ok and before.get(n) and n in accept)
    print(f'regress: {sum(after.values())} passed, {bad} regressed, '
          f'{accepted} accepted, {known} failing in both runs')
    sys.exit(1 if bad else 0)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'regress':
        opts = sys.argv[4:]
        if len(opts) % 2 or any(o != '--accept' for o in opts[::2]):
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
