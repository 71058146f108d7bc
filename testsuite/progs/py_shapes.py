# py_shapes.py MODE - Python call shapes for the pybacktrace() tests.
# The line numbers matter: the tests name them. Results go to stderr, so
# that they never split a line of the tracer's output.
import os
import sys
import threading
import time


def inner(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def middle(n):
    return inner(n)


def outer(n):
    return middle(n)


def chain(rounds):
    time.sleep(0.01)  # the tests' sampling starts here (clock_nanosleep)
    t = 0
    for _ in range(rounds):
        t += outer(30000)
    time.sleep(0.01)  # and ends here
    return t


def gen(n):
    for i in range(n):
        os.getppid()
        yield i


def consume():
    return sum(gen(2))


def rec(n):
    if n == 0:
        return os.getppid()
    return rec(n - 1) + 1


def key(x):
    if x == 3:
        os.getppid()
    return -x


def sort_it():
    return sorted([1, 2, 3, 4], key=key)


def worker_a():
    os.getppid()


def worker_b():
    os.getppid()


def threads():
    ts = [threading.Thread(target=f) for f in (worker_a, worker_b)]
    for t in ts:
        t.start()
        t.join()


def cthread():
    # a thread that never runs Python: libc's getppid as its start routine
    import ctypes
    libc = ctypes.CDLL(None)
    tid = ctypes.c_ulong()
    start = ctypes.cast(libc.getppid, ctypes.c_void_p)
    libc.pthread_create(ctypes.byref(tid), None, start, None)
    libc.pthread_join(tid, None)


mode = sys.argv[1]
if mode == "chain":
    print("chain", chain(int(sys.argv[2])) > 0, file=sys.stderr)
elif mode == "gen":
    print("gen", consume(), file=sys.stderr)
elif mode == "rec":
    print("rec", rec(200), file=sys.stderr)
elif mode == "sorted":
    print("sorted", sort_it(), file=sys.stderr)
elif mode == "threads":
    threads()
    print("threads", file=sys.stderr)
elif mode == "cthread":
    cthread()
    print("cthread", file=sys.stderr)
elif mode == "syscalls":
    def sys_loop(rounds):
        time.sleep(0.01)  # sampling on
        for _ in range(rounds):
            os.stat("/")
        time.sleep(0.01)  # and off
    sys_loop(int(sys.argv[2]))
    print("syscalls", file=sys.stderr)
