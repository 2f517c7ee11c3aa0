package io.awscsi.ebs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.PublishRequest;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Small builders and assertions shared by the controller integration tests. */
final class Requests {

  static final long GIB = 1L << 30;
  static final VolumeCapability MOUNT = VolumeCapability.mount(AccessMode.SINGLE_NODE_WRITER, "ext4");
  static final VolumeCapability BLOCK = VolumeCapability.block(AccessMode.SINGLE_NODE_WRITER);
  static final VolumeCapability MULTI_BLOCK = VolumeCapability.block(AccessMode.MULTI_NODE_MULTI_WRITER);

  private Requests() {}

  static TopologyRequirement inZone(String zone) {
    return new TopologyRequirement(List.of(Map.of("topology.kubernetes.io/zone", zone)),
        List.of(Map.of("topology.kubernetes.io/zone", zone)));
  }

  static VolumeRequest volume(String name, int gib, Map<String, String> parameters) {
    return new VolumeRequest(name, new CapacityRange(gib * GIB, 0), List.of(MOUNT), parameters, Map.of(), Map.of(),
        new VolumeSource.Empty(), inZone(Ec2Environment.ZONE));
  }

  static VolumeRequest volume(String name, int gib, Map<String, String> parameters, VolumeCapability capability,
      VolumeSource source) {
    return new VolumeRequest(name, new CapacityRange(gib * GIB, 0), List.of(capability), parameters, Map.of(),
        Map.of(), source, inZone(Ec2Environment.ZONE));
  }

  static PublishRequest publish(String volumeId, String nodeId, VolumeCapability capability) {
    return new PublishRequest(volumeId, nodeId, capability, false, Map.of(), Map.of());
  }

  static void assertError(ThrowingCallable call, Class<? extends DriverError> kind, String... messageParts) {
    assertThatThrownBy(call).isInstanceOfSatisfying(DriverException.class, e -> {
      assertThat(e.error()).as(e.getMessage()).isInstanceOf(kind);
      String text = e.error() instanceof DriverError.InvalidArgument ia ? ia.field() + ": " + e.getMessage()
          : e.getMessage();
      for (String part : messageParts) {
        assertThat(text).contains(part);
      }
    });
  }
}
