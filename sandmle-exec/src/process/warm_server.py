# The warm interpreter of sandmle-exec's persistent workspaces.
#
# Started once per workspace inside its sandbox, as the sandbox's PID 1
# (bubblewrap's --as-pid-1): processes of the sandbox can neither kill it
# (PID 1 gets only the signals it handles, and it handles none) nor trace
# it or open its descriptors (it is not dumpable). It imports the preload
# modules, then serves code steps, one at a time, over descriptor 0, a
# SOCK_SEQPACKET socket to the executor; every packet is one JSON object.
#
#   executor -> {"op": "run", "path": "/workspace/main_1.py", "argv0": "main_1.py"}
#               with the step's stdout and stderr pipes attached (SCM_RIGHTS)
#   executor -> {"op": "kill"}            while a step runs: end it now
#   server   -> {"ready": {...}} once; {"fatal": "..."} instead when it cannot serve
#   server   -> {"exit": STATUS, "killed": BOOL} when a step is over, STATUS
#               as a shell reports it (128 + N for a signal N)
#   server   -> {"error": "..."} when a step could not be started
#
# Each step runs in a fresh child forked from the server: descriptors 0-2
# only (stdin /dev/null, the step's pipes), its own session, the file run
# as `python3 FILE` runs it (a fresh `__main__`, `sys.argv`, `sys.path[0]`)
# in /workspace. When it ends, every other process of the
# sandbox is killed and reaped and /tmp, /dev/shm, /dev/mqueue and System V
# IPC objects are emptied, so the next step starts from the same state as
# the first: only the workspace's files persist.
import gc, json, os, select, signal, socket, stat, sys

CONFIG = json.loads(sys.argv[1])
WORKSPACE = CONFIG["workspace"]
SCRATCH = ["/tmp", "/dev/shm", "/dev/mqueue"]


def send(sock, obj):
    sock.send(json.dumps(obj).encode())


def recv(sock):
    """One request and the descriptors that came with it; None at EOF."""
    data, fds, _, _ = socket.recv_fds(sock, 65536, 4)
    if not data:
        for fd in fds:
            os.close(fd)
        return None, []
    try:
        msg = json.loads(data)
    except ValueError:
        msg = {}
    return (msg if isinstance(msg, dict) else {}), fds


def libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def start(sock):
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        if libc().prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE 0
            raise OSError("prctl(PR_SET_DUMPABLE) failed")
    except Exception as e:
        send(sock, {"fatal": f"cannot protect the server: {e}"})
        sys.exit(1)
    sys.path[:] = [p for p in sys.path if p]
    import importlib

    preloaded, failed = [], {}
    for name in CONFIG["preload"]:
        try:
            importlib.import_module(name)
            preloaded.append(name)
        except BaseException as e:  # a broken package must not stop the server
            failed[name] = f"{type(e).__name__}: {e}"[:300]
    import atexit, threading, traceback, types, warnings  # noqa: F401 (what every step needs)
    from importlib.machinery import SourceFileLoader  # noqa: F401

    gc.collect()
    gc.freeze()
    version = sys.version.split()[0]
    send(sock, {"ready": {"python": version, "preloaded": preloaded, "failed": failed}})


def exit_code(e):
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except Exception:
        pass
    return 1


def child(sock, msg, out, err):
    """The step's process: never returns."""
    try:
        os.setsid()
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        sock.detach()
        for name in os.listdir("/proc/self/fd"):
            if int(name) > 2:
                try:
                    os.close(int(name))
                except OSError:
                    pass
        libc().prctl(4, 1, 0, 0, 0)  # dumpable again, as any process
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(WORKSPACE)
        path = str(msg["path"])
        sys.argv[:] = [str(msg.get("argv0", path))]
        sys.path.insert(0, os.path.dirname(path))
        rng = sys.modules.get("numpy.random")
        if rng is not None:
            rng.seed()  # a fresh global state, as a fresh interpreter's
    except BaseException:
        os._exit(127)
    code = run(path)
    try:
        if "threading" in sys.modules:
            sys.modules["threading"]._shutdown()
    except BaseException:
        pass
    try:
        import atexit

        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            code = 120
    os._exit(code)


def run(path):
    """Runs the file as `python3 FILE` does: a fresh `__main__` module with
    `__file__`, a source loader and no spec, the code compiled from the
    file under its path."""
    import builtins, io, types
    from importlib.machinery import SourceFileLoader

    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = builtins
    main.__loader__ = SourceFileLoader("__main__", path)
    main.__spec__ = None
    main.__package__ = None
    sys.modules["__main__"] = main
    try:
        with io.open_code(path) as f:
            source = f.read()
        exec(compile(source, path, "exec", dont_inherit=True), main.__dict__)
        return 0
    except SystemExit as e:
        return exit_code(e)
    except BaseException as e:
        # The traceback starts at the program, as a fresh interpreter's.
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != path:
            tb = tb.tb_next
        try:
            sys.excepthook(type(e), e.with_traceback(tb), tb)
        except BaseException:
            pass
        if isinstance(e, KeyboardInterrupt):
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        return 1


def reap(pid, block):
    """Reaps what has ended; the status of `pid` if it is among them."""
    found = None
    while True:
        try:
            p, status = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return found
        if p == 0:
            return found
        if p == pid:
            found = status
            if not block:
                return found


def shell_status(status):
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1


def wipe(root):
    """Removes everything on `root`'s file system under it, leaving other
    file systems mounted below it (the Python environment's binds) alone."""
    try:
        dev = os.lstat(root).st_dev
    except OSError:
        return
    stack, dirs = [root], []
    while stack:
        d = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            try:
                st = e.stat(follow_symlinks=False)
                if st.st_dev != dev:
                    continue
                if stat.S_ISDIR(st.st_mode):
                    stack.append(e.path)
                    dirs.append(e.path)
                else:
                    os.unlink(e.path)
            except OSError:
                pass
    for d in reversed(dirs):
        try:
            os.rmdir(d)
        except OSError:
            pass


def remove_ipc():
    lib = None
    for kind, call in (("shm", "shmctl"), ("sem", "semctl"), ("msg", "msgctl")):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                ids = [int(line.split()[1]) for line in f.readlines()[1:] if line.strip()]
        except (OSError, ValueError, IndexError):
            continue
        for ident in ids:
            lib = lib or libc()
            if call == "semctl":
                lib.semctl(ident, 0, 0)  # IPC_RMID
            else:
                getattr(lib, call)(ident, 0, None)


def clean():
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    reap(None, True)
    for root in SCRATCH:
        wipe(root)
    remove_ipc()


def step(sock, msg, fds):
    if len(fds) != 2 or not isinstance(msg.get("path"), str):
        for fd in fds:
            os.close(fd)
        send(sock, {"error": "a run request carries a path and two descriptors"})
        return
    out, err = fds
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            pid = os.fork()
        except OSError as e:
            pid = -1
            failure = str(e)
    if pid == 0:
        child(sock, msg, out, err)
    os.close(out)
    os.close(err)
    if pid < 0:
        send(sock, {"error": f"fork failed: {failure}"})
        return
    try:
        pidfd, wait = os.pidfd_open(pid), None
    except (AttributeError, OSError):
        pidfd, wait = None, 0.005
    status, killed = None, False
    while status is None:
        ready, _, _ = select.select([sock] + ([pidfd] if pidfd is not None else []), [], [], wait or 0.05)
        if sock in ready:
            req, extra = recv(sock)
            for fd in extra:
                os.close(fd)
            if req is None:  # the executor is gone
                clean()
                os._exit(0)
            if req.get("op") == "kill":
                killed = True
                try:
                    os.kill(-1, signal.SIGKILL)
                except OSError:
                    pass
                status = reap(pid, True)
                break
        status = reap(pid, False)
    if pidfd is not None:
        os.close(pidfd)
    clean()
    send(sock, {"exit": shell_status(status if status is not None else 9), "killed": killed})


def main():
    sock = socket.socket(fileno=0)
    start(sock)
    while True:
        msg, fds = recv(sock)
        if msg is None:
            clean()
            return
        if msg.get("op") == "run":
            step(sock, msg, fds)
        else:
            for fd in fds:
                os.close(fd)


main()
