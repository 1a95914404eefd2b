"""python3 -m dlsim CMD ARGS: the dlsim command line in this process,
where `run --policy py:PATH.py:CLASS[:key=value,...]` runs a Python
policy.  `dlsim run` re-executes itself as this when given such a policy
(sim/cli/cli.c), so both spellings take the same options and give the
same outputs and exit statuses."""
import ctypes as C
import sys


def _policy_arg(argv):
    for i, a in enumerate(argv):
        if a == "--policy" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--policy="):
            return a[len("--policy="):]
    return None


def main(argv):
    from . import _capi
    from .policy import _Host, load_policy
    host = None
    spec = _policy_arg(argv)
    if argv and argv[0] == "run" and spec and spec.startswith("py:"):
        try:
            host = _Host(load_policy(spec))
        except Exception as e:      # a bad file or class: bad input
            print(f"dlsim run: --policy {spec}: {e}", file=sys.stderr)
            return 2
    args = [b"dlsim"] + [a.encode() for a in argv]
    arr = (C.c_char_p * (len(args) + 1))(*args, None)
    sys.stdout.flush()
    rc = _capi.lib.dlsim_cli(len(args), arr, C.pointer(host.py) if host else None)
    if host is not None and host.exc is not None:
        raise host.exc
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
