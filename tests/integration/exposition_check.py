#!/usr/bin/python3
"""Reads a /metrics answer as Prometheus would, and prints what a test
compares: one line per series, "NAME{LABELS}" with the labels sorted, then
its value.

    exposition_check.py openmetrics FILE   parse with prometheus_client's
                                           OpenMetrics parser, strictly
    exposition_check.py text FILE          parse as the text format

An OpenMetrics answer must also end in "# EOF", and a family with a UNIT
must be named after it. A series of a device (one with a "device" label)
must carry every device label. Exit status 1 and the reason on standard
error otherwise.
"""
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families as om_families
from prometheus_client.parser import text_string_to_metric_families as text_families

DEVICE_LABELS = ("device", "device_id", "pci_id", "model", "driver")


def fail(why):
    print(f"exposition_check: {why}", file=sys.stderr)
    sys.exit(1)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    text = open(path, encoding="utf-8").read()
    if kind == "openmetrics":
        if not text.endswith("# EOF\n"):
            fail("an OpenMetrics answer must end in '# EOF'")
        try:
            families = list(om_families(text))
        except ValueError as e:
            fail(f"not OpenMetrics: {e}")
        for f in families:
            if f.unit and not f.name.endswith("_" + f.unit):
                fail(f"{f.name} has UNIT {f.unit} but is not named after it")
    else:
        if "# EOF" in text or "# UNIT" in text:
            fail("the text format has no '# EOF' or '# UNIT'")
        families = list(text_families(text))
    seen = set()
    for f in families:
        for s in f.samples:
            if "device" in s.labels:
                missing = [l for l in DEVICE_LABELS if not s.labels.get(l)]
                if missing:
                    fail(f"{s.name} lacks {', '.join(missing)}")
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
            key = f"{s.name}{{{labels}}}"
            if key in seen:
                fail(f"{key} appears twice")
            seen.add(key)
            print(key, s.value)


main()
