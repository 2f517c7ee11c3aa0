package io.awscsi.efs.mount;

import io.awscsi.efs.cloud.AccessPoint;
import java.util.Optional;

/** Finds an access point's root directory; the local backend needs it where EFS would resolve it server-side. */
@FunctionalInterface
public interface AccessPointLookup {

  Optional<AccessPoint> describe(String accessPointId);
}
