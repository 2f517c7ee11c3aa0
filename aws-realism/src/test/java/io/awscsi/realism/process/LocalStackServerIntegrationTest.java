package io.awscsi.realism.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.realism.AwsClients;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * LocalStack as a plain process: it starts from the venv in {@code .tools/localstack}, listens on loopback only,
 * tries nothing that would leave the machine, serves EC2, and is gone after close. It also shows why the realism
 * layer goes in front of it: like moto, it ignores ClientToken and Owner.
 */
@Tag("integration")
class LocalStackServerIntegrationTest {

  private static final String AUTHORIZATION = "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/ec2/aws4_request, "
      + "SignedHeaders=host, Signature=0";
  private static final Pattern VOLUME_ID = Pattern.compile("<volumeId>(vol-[0-9a-f]+)</volumeId>");

  private static LocalStackServer localStack;

  @BeforeAll
  static void start() {
    localStack = LocalStackServer.start();
    System.out.println("LocalStack " + LocalStackServer.VERSION + " started in " + localStack.startTime().toMillis()
        + " ms");
  }

  @AfterAll
  static void stop() {
    long pid = localStack.pid();
    List<String> refused = localStack.refusedOutbound();
    localStack.close();
    assertThat(refused).as("LocalStack's attempts to leave the machine").isEmpty();
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("LocalStack still running")
        .isFalse();
  }

  @Test
  void servesEc2OnLoopbackOnlyAndTriesNothingOutside() throws Exception {
    long pid = localStack.pid();
    try (var http = HttpClient.newHttpClient()) {
      URI endpoint = localStack.endpoint();
      assertThat(endpoint.getHost()).isEqualTo("127.0.0.1");

      String create = "Action=CreateVolume&Version=2016-11-15&Size=1&AvailabilityZone=us-east-1a"
          + "&ClientToken=same-token";
      String first = volumeId(ec2(http, endpoint, create));
      String second = volumeId(ec2(http, endpoint, create));
      // Real EC2 answers the second call with the first volume; LocalStack (like moto) makes another.
      assertThat(second).isNotEqualTo(first);
      assertThat(ec2(http, endpoint, "Action=DescribeVolumes&Version=2016-11-15")).contains(first, second);

      List<String> listening = listeningAddresses(pid);
      assertThat(listening).as("listening sockets of LocalStack (pid %d)", pid).isNotEmpty()
          .allSatisfy(a -> assertThat(a).matches("(127\\..*|::1|::ffff:127\\..*):\\d+"));
      assertThat(localStack.refusedOutbound()).as(localStack.outputTail()).isEmpty();
    }
  }

  /** What the realism layer adds in front of LocalStack, as it does in front of moto. */
  @Test
  void behindTheRealismLayerClientTokenAndOwnerSelfActAsOnEc2() {
    try (var proxy = RealismProxy.builder().upstream(localStack.endpoint()).profile(RealismProfile.instant()).start();
        var ec2 = AwsClients.ec2(proxy.endpoint())) {
      String first = ec2.createVolume(r -> r.size(1).availabilityZone("us-east-1a").clientToken("one-token"))
          .volumeId();
      String second = ec2.createVolume(r -> r.size(1).availabilityZone("us-east-1a").clientToken("one-token"))
          .volumeId();
      assertThat(second).isEqualTo(first);

      String snapshot = ec2.createSnapshot(r -> r.volumeId(first)).snapshotId();
      // LocalStack, like moto, ignores Owner; "self" is the caller's account, which LocalStack maps from the key
      // (000000000000 here), not moto's 123456789012.
      assertThat(ec2.describeSnapshots(r -> r.ownerIds("self")).snapshots())
          .anySatisfy(s -> assertThat(s.snapshotId()).isEqualTo(snapshot))
          .allSatisfy(s -> assertThat(s.ownerId()).isEqualTo("000000000000"));
      assertThat(ec2.describeSnapshots(r -> r.ownerIds(RealismProfile.MOTO_ACCOUNT_ID)).snapshots()).isEmpty();
      assertThat(ec2.describeSnapshots(r -> r.ownerIds("amazon")).snapshots()).isEmpty();
    }
  }

  private static String volumeId(String body) {
    var m = VOLUME_ID.matcher(body);
    assertThat(m.find()).as(body).isTrue();
    return m.group(1);
  }

  private static String ec2(HttpClient http, URI endpoint, String form) throws Exception {
    var request = HttpRequest.newBuilder(endpoint)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Authorization", AUTHORIZATION)
        .POST(HttpRequest.BodyPublishers.ofString(form)).build();
    return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
  }

  /** Local addresses of the TCP sockets in LISTEN state that the process and its descendants hold. */
  private static List<String> listeningAddresses(long pid) throws Exception {
    Set<String> inodes = new HashSet<>();
    List<Long> pids = new ArrayList<>(List.of(pid));
    ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> pids.add(d.pid())));
    for (long p : pids) {
      try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(p), "fd"))) {
        for (Path fd : fds.toList()) {
          try {
            String target = Files.readSymbolicLink(fd).toString();
            if (target.startsWith("socket:[")) {
              inodes.add(target.substring(8, target.length() - 1));
            }
          } catch (java.io.IOException e) {
            // closed meanwhile
          }
        }
      }
    }
    List<String> addresses = new ArrayList<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines = Files.readAllLines(Path.of(table));
      for (String line : lines.subList(1, lines.size())) {
        String[] f = line.trim().split("\\s+");
        if (f[3].equals("0A") && inodes.contains(f[9])) {
          addresses.add(address(f[1]));
        }
      }
    }
    return addresses;
  }

  /** {@code 0100007F:1F90} or the 32-hex-digit IPv6 form, as the kernel prints them, to {@code 127.0.0.1:8080}. */
  private static String address(String hex) {
    String[] parts = hex.split(":");
    int port = Integer.parseInt(parts[1], 16);
    String ip = parts[0];
    byte[] bytes = new byte[ip.length() / 2];
    // The kernel prints each 32-bit word in host (little-endian) order.
    for (int word = 0; word < bytes.length / 4; word++) {
      for (int b = 0; b < 4; b++) {
        int at = word * 8 + (3 - b) * 2;
        bytes[word * 4 + b] = (byte) Integer.parseInt(ip.substring(at, at + 2), 16);
      }
    }
    try {
      String text = java.net.InetAddress.getByAddress(bytes).getHostAddress();
      // Java prints IPv4-mapped addresses as plain IPv4; keep the kernel's view for IPv6 sockets.
      if (bytes.length == 16 && text.indexOf(':') < 0) {
        text = "::ffff:" + text;
      } else if (text.equals("0:0:0:0:0:0:0:1")) {
        text = "::1";
      }
      return text + ":" + port;
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }
}
