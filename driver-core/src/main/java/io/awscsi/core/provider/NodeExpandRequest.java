package io.awscsi.core.provider;

import java.nio.file.Path;

/** NodeExpandVolume; {@code stagingPath} and {@code capability} may be null when the CO omits them. */
public record NodeExpandRequest(String volumeId, Path volumePath, Path stagingPath, CapacityRange capacity,
    VolumeCapability capability) {}
