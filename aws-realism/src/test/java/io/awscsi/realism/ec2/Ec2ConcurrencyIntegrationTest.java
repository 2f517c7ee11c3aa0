package io.awscsi.realism.ec2;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.realism.AwsClients;
import io.awscsi.realism.MotoExtension;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.process.MotoServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;

/** Racing calls: the proxy's checks hold when several clients hit the same volume or token at once. */
@Tag("integration")
@ExtendWith(MotoExtension.class)
class Ec2ConcurrencyIntegrationTest {

  private static final String ZONE = "us-east-1a";

  private RealismProxy proxy;
  private Ec2Client ec2;

  @BeforeEach
  void start(MotoServer moto) {
    proxy = RealismProxy.builder().upstream(moto.endpoint()).profile(RealismProfile.instant()).start();
    proxy.reset();
    ec2 = AwsClients.ec2(proxy.endpoint());
  }

  @AfterEach
  void stop() {
    ec2.close();
    proxy.close();
  }

  @Test
  void concurrentCreatesWithOneClientTokenMakeOneVolume() throws Exception {
    List<String> ids = race(12, i -> ec2.createVolume(r -> r.availabilityZone(ZONE).size(10).clientToken("same"))
        .volumeId());

    assertThat(ids).hasSize(12).containsOnly(ids.getFirst());
    assertThat(ec2.describeVolumes().volumes()).hasSize(1);
  }

  @Test
  void concurrentAttachesOfOneVolumeToTwoInstancesLetOneWin() throws Exception {
    String first = runInstance();
    String second = runInstance();
    String volumeId = ec2.createVolume(r -> r.availabilityZone(ZONE).size(10)).volumeId();

    List<String> outcomes = race(2, i -> {
      try {
        ec2.attachVolume(r -> r.volumeId(volumeId).instanceId(i == 0 ? first : second).device("/dev/xvdba"));
        return "attached";
      } catch (Ec2Exception e) {
        return e.awsErrorDetails().errorCode();
      }
    });

    assertThat(outcomes).containsExactlyInAnyOrder("attached", "VolumeInUse");
    assertThat(ec2.describeVolumes(r -> r.volumeIds(volumeId)).volumes().getFirst().attachments()).hasSize(1);
  }

  private interface Call {
    String run(int index) throws Exception;
  }

  private static List<String> race(int callers, Call call) throws InterruptedException, ExecutionException {
    try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<Future<String>>();
      for (int i = 0; i < callers; i++) {
        int index = i;
        futures.add(executor.submit((Callable<String>) () -> call.run(index)));
      }
      var results = new ArrayList<String>();
      for (Future<String> future : futures) {
        results.add(future.get());
      }
      return results;
    }
  }

  private String runInstance() {
    return ec2.runInstances(r -> r.imageId("ami-12c6146b").minCount(1).maxCount(1)
        .placement(p -> p.availabilityZone(ZONE))).instances().getFirst().instanceId();
  }
}
