package io.awscsi.core.provider;

import java.util.Optional;

/**
 * One CSI driver (EBS or EFS) in one mode: what the launcher hands to driver-core. Controller and node are absent
 * when the mode does not serve them.
 */
public record DriverProvider(String driverName, String version, Optional<ControllerProvider> controller,
    Optional<NodeProvider> node, boolean volumeAccessibilityConstraints, AutoCloseable resources) {}
