# pyline_vectors.py OUT - location tables of real code with CPython's own
# answers, for test_pyline: every code object (nested ones too) of a few
# standard library modules, compiled by the python3.11 that runs this.
# One line per code object:
#   FIRSTLINENO HEX(co_linetable) START:END:LINE ...
# with co_lines()'s ranges in bytes (LINE "-" for no line).
import sys

MODULES = ["threading", "json.decoder", "argparse", "asyncio.base_events", "dataclasses",
           "inspect", "email.message"]


def walk(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_linetable"):
            yield from walk(c)


def main(out):
    import importlib.util
    with open(out, "w") as f:
        for name in MODULES:
            spec = importlib.util.find_spec(name)
            src = open(spec.origin).read()
            for co in walk(compile(src, spec.origin, "exec")):
                ranges = " ".join("%d:%d:%s" % (s, e, "-" if l is None else l)
                                  for s, e, l in co.co_lines())
                f.write("%d %s %s\n" % (co.co_firstlineno, co.co_linetable.hex() or "-", ranges))


main(sys.argv[1])
