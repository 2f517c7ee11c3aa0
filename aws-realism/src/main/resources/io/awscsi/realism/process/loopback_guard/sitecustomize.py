# Loaded by every Python process started with this directory on PYTHONPATH (LocalStackServer puts it there).
# It keeps the process on this machine: a name lookup that would need DNS, a connection or datagram to an address
# off loopback, a listening socket on a non-loopback address, or a child program other than Python and rm (LocalStack
# pings Docker bridge addresses when it thinks it runs in a container) is refused with the error the call would give
# without a network, and recorded one line each in $LOOPBACK_GUARD_LOG, which the test reads.
import errno
import ipaddress
import os
import socket
import sys

_LOG = os.environ.get("LOOPBACK_GUARD_LOG")
# Programs that only touch local files (LocalStack clears its temporary directory with rm -rf).
_LOCAL_PROGRAMS = {"rm"}
_UNIX_FAMILIES = {getattr(socket, name) for name in ("AF_UNIX", "AF_NETLINK") if hasattr(socket, name)}


def _record(event, detail):
    line = "refused %s %r\n" % (event, detail)
    sys.stderr.write("loopback-guard: " + line)
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as f:
            f.write(line)


def _literal(host):
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None


def _loopback(host):
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host is None or host == "" or host.lower() in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    ip = _literal(host)
    if ip is None:
        return False
    if getattr(ip, "ipv4_mapped", None) is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _local_address(sock, address):
    if sock.family in _UNIX_FAMILIES or not isinstance(address, tuple) or not address:
        return True
    return _loopback(address[0])


def _hook(event, args):
    if event == "socket.getaddrinfo":
        host = args[0]
        if isinstance(host, bytes):
            host = host.decode("ascii", "replace")
        # An IP literal resolves without a lookup; the connect that may follow is checked on its own.
        if not _loopback(host) and _literal(host) is None:
            _record("lookup", (host, args[1]))
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known (loopback guard)")
    elif event in ("socket.gethostbyname", "socket.gethostbyname_ex"):
        if not _loopback(args[0]) and _literal(args[0]) is None:
            _record("lookup", args[0])
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known (loopback guard)")
    elif event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        sock, address = args[0], args[1]
        if address is not None and not _local_address(sock, address):
            _record(event.split(".", 1)[1], address)
            raise OSError(errno.ENETUNREACH, "Network is unreachable (loopback guard)")
    elif event == "socket.bind":
        sock, address = args
        if not _local_address(sock, address):
            _record("bind", address)
            raise OSError(errno.EADDRNOTAVAIL, "Cannot assign requested address (loopback guard)")
    elif event in ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.spawn", "os.system"):
        program = _program(event, args)
        name = os.path.basename(program)
        if not (name.startswith("python") or name in _LOCAL_PROGRAMS):
            _record("exec", program)
            raise PermissionError(errno.EACCES, "Permission denied (loopback guard): " + program)


def _program(event, args):
    """The program a start event runs; for a shell's -c, the command's first word."""
    if event == "os.system":
        command = args[0].decode() if isinstance(args[0], bytes) else args[0]
        return command.split()[0] if command.split() else command
    path, argv = (args[1], args[2]) if event == "os.spawn" else (args[0], args[1])
    if isinstance(argv, (str, bytes)):
        argv = [argv]
    argv = [a.decode() if isinstance(a, bytes) else str(a) for a in (argv or [])]
    if len(argv) >= 3 and os.path.basename(argv[0]) in ("sh", "bash", "dash") and argv[1] == "-c":
        return argv[2].split()[0] if argv[2].split() else argv[2]
    path = path.decode() if isinstance(path, bytes) else path
    return str(path or (argv[0] if argv else ""))


sys.addaudithook(_hook)
