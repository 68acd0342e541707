#!/usr/bin/python3
"""Reads gpuperf compare's JUnit XML as GitLab and Jenkins do, against its
text report:

    junit_check.py REPORT.xml TEXT_REPORT

One test case per counter of the text report; the counters the text calls
WORSE are exactly the failures, counted in the suite's attributes, each
with the change, its interval and the two values in its message. Prints
why not and exits 1, or exits 0.
"""
import re
import sys
import xml.etree.ElementTree as ET


def main():
    root = ET.parse(sys.argv[1]).getroot()
    rows = [l.split() for l in open(sys.argv[2], encoding="utf-8")
            if re.search(r" (ok|better|WORSE|CHANGED|reported|no value)$", l.rstrip())]
    worse = sorted(r[0] for r in rows if r[-1] == "WORSE")
    if root.tag != "testsuites":
        return f"the root is {root.tag}, not testsuites"
    suite = root.find("testsuite")
    cases = suite.findall("testcase") if suite is not None else []
    if len(cases) != len(rows):
        return f"{len(cases)} test cases for {len(rows)} counters"
    failed = sorted(c.get("name") for c in cases if c.find("failure") is not None)
    if failed != worse:
        return f"failures {failed}, but the text's WORSE counters are {worse}"
    if not (suite.get("failures") == root.get("failures") == str(len(worse))):
        return f"failures counted {suite.get('failures')} and {root.get('failures')}"
    for c in cases:
        f = c.find("failure")
        if f is not None and not re.match(
                r"[+-]\d+\.\d% \(\d+% interval [+-][\d.]+% \.\. [+-][\d.]+%\): .+ -> .+",
                f.get("message", "")):
            return f"{c.get('name')}'s failure says '{f.get('message')}'"
    return None


why = main()
if why:
    print(f"junit_check: {why}")
    sys.exit(1)
