package io.awscsi.realism.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python start-up hook that keeps LocalStack on this machine refuses every way out and lets loopback through. The
 * probe runs in a network namespace of its own with only loopback ({@code unshare -n}), so nothing could leave even
 * if the guard let it.
 */
@Tag("integration")
class LoopbackGuardTest {

  private static final String PROBE = """
      import socket, subprocess, sys
      def attempt(name, call):
          try:
              call()
              print(name, "allowed")
          except OSError as e:
              print(name, "refused" if "loopback guard" in str(e) else "failed: %s" % e)
      def connect(address, family=socket.AF_INET):
          s = socket.socket(family, socket.SOCK_STREAM); s.settimeout(1)
          try: s.connect(address)
          except ConnectionRefusedError: pass
          finally: s.close()
      def bind(address, family=socket.AF_INET):
          s = socket.socket(family, socket.SOCK_STREAM)
          try: s.bind(address)
          finally: s.close()
      def sendto(address):
          s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
          try: s.sendto(b"x", address)
          finally: s.close()
      attempt("lookup-outside", lambda: socket.getaddrinfo("api.localstack.cloud", 443))
      attempt("gethostbyname-outside", lambda: socket.gethostbyname("localstack.cloud"))
      attempt("lookup-localhost", lambda: socket.getaddrinfo("localhost", 80))
      attempt("lookup-literal", lambda: socket.getaddrinfo("192.0.2.1", 80))
      attempt("connect-outside", lambda: connect(("192.0.2.1", 443)))
      attempt("connect-mapped-outside", lambda: connect(("::ffff:192.0.2.1", 443, 0, 0), socket.AF_INET6))
      attempt("sendto-outside", lambda: sendto(("192.0.2.53", 53)))
      attempt("connect-loopback", lambda: connect(("127.0.0.1", 9)))
      attempt("bind-any", lambda: bind(("0.0.0.0", 0)))
      attempt("bind-loopback", lambda: bind(("127.0.0.1", 0)))
      attempt("bind-mapped-loopback", lambda: bind(("::ffff:127.0.0.1", 0, 0, 0), socket.AF_INET6))
      attempt("exec-ping", lambda: subprocess.call("ping -c 1 -W 1 192.0.2.1", shell=True))
      attempt("exec-python", lambda: subprocess.check_call([sys.executable, "-c", "pass"]))
      """;

  @Test
  void refusesEveryWayOffLoopbackAndRecordsIt(@TempDir Path dir) throws Exception {
    Path guard = LocalStackServer.writeGuard(dir);
    Path log = dir.resolve("refused.log");
    Path python = ExecutableLookup.onPath("python3").orElseThrow(() -> new AssertionError("python3 not on PATH"));
    var builder = new ProcessBuilder("unshare", "-n", "sh", "-c", "ip link set lo up && exec \"$0\" -c \"$1\"",
        python.toString(), PROBE).redirectErrorStream(true);
    builder.environment().put("PYTHONPATH", guard.toString());
    builder.environment().put("LOOPBACK_GUARD_LOG", log.toString());
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(out).isTrue();
    assertThat(process.exitValue()).as(out).isZero();

    assertThat(out.lines().filter(l -> !l.startsWith("loopback-guard:")).toList()).as(out).containsExactly(
        "lookup-outside refused", "gethostbyname-outside refused", "lookup-localhost allowed",
        "lookup-literal allowed", "connect-outside refused", "connect-mapped-outside refused",
        "sendto-outside refused", "connect-loopback allowed", "bind-any refused", "bind-loopback allowed",
        "bind-mapped-loopback allowed", "exec-ping refused", "exec-python allowed");
    List<String> refused = Files.readAllLines(log);
    assertThat(refused).hasSize(7);
    assertThat(refused.getFirst()).isEqualTo("refused lookup ('api.localstack.cloud', 443)");
    assertThat(refused).anySatisfy(l -> assertThat(l).isEqualTo("refused exec 'ping'"));
  }
}
