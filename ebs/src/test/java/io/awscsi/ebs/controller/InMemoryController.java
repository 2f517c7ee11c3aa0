package io.awscsi.ebs.controller;

import io.awscsi.core.provider.Volume;
import io.awscsi.ebs.cloud.InMemoryEbsCloud;
import java.time.Duration;
import java.util.Map;

/**
 * The EBS controller's handlers on an {@link InMemoryEbsCloud}: the fast unit tests' fixture (no moto, no network).
 * The moto tests ({@code *IntegrationTest}) keep covering {@code SdkEbsCloud} against EC2's wire behaviour.
 */
final class InMemoryController {

  static final String ZONE = Ec2Environment.ZONE;
  static final String OTHER_ZONE = Ec2Environment.OTHER_ZONE;
  static final String THIRD_ZONE = "us-east-1c";

  final InMemoryEbsCloud cloud = new InMemoryEbsCloud(ZONE, OTHER_ZONE, THIRD_ZONE);
  final EbsControllerProvider provider;

  InMemoryController() {
    this(options());
  }

  InMemoryController(EbsControllerOptions options) {
    provider = EbsControllerProvider.on(cloud, options);
  }

  /** Short waits: a unit test never waits for EC2, only for the handlers' own polls. */
  static EbsControllerOptions options() {
    return EbsControllerOptions.defaults("us-east-1").withDefaultCallTimeout(Duration.ofSeconds(20))
        .withModifyVolumeRequestHandlerTimeout(Duration.ofMillis(20));
  }

  /** A new available gp3 volume of {@code gib} in {@link #ZONE}. */
  String volume(String name, int gib) {
    return create(name, gib, Map.of()).volumeId();
  }

  Volume create(String name, int gib, Map<String, String> parameters) {
    return provider.provisioner().createVolume(Requests.volume(name, gib, parameters));
  }
}
