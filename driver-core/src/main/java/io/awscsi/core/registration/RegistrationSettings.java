package io.awscsi.core.registration;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The kubelet plugin registration as node-driver-registrar does it: a socket {@code <driver>-reg.sock} in the kubelet's
 * plugin registration directory, answering with the CSI socket path as the kubelet sees it.
 *
 * @param kubeletRegistrationPath the CSI socket as the kubelet sees it (the registrar's --kubelet-registration-path)
 * @param pluginRegistrationDir   the directory the kubelet's plugin watcher watches (--plugin-registration-path)
 * @param checkPeriod             how often the registration socket is checked (removed sockets are served again)
 * @param retryAfterFailure       after a failed registration, the wait before the socket is served anew; doubled
 *                                on every failure in a row up to {@code maxRetryAfterFailure}
 */
public record RegistrationSettings(String driverName, String kubeletRegistrationPath, Path pluginRegistrationDir,
    Duration checkPeriod, Duration retryAfterFailure, Duration maxRetryAfterFailure) {

  /** The kubelet's default plugin registration directory. */
  public static final Path DEFAULT_DIRECTORY = Path.of("/var/lib/kubelet/plugins_registry");

  /** The versions node-driver-registrar reports (the kubelet's CSI plugin handler accepts 1.x). */
  public static final List<String> SUPPORTED_VERSIONS = List.of("1.0.0");

  /**
   * The registrar restarts its container after a failed registration, which the kubelet delays by its crash-loop
   * back-off (10 s doubling to 5 min); the socket is served anew on the same schedule.
   */
  public static RegistrationSettings of(String driverName, String kubeletRegistrationPath, Path pluginRegistrationDir) {
    return new RegistrationSettings(driverName, kubeletRegistrationPath, pluginRegistrationDir, Duration.ofSeconds(5),
        Duration.ofSeconds(10), Duration.ofMinutes(5));
  }

  /** {@code <dir>/<driver name>-reg.sock}, the name node-driver-registrar uses. */
  public Path socketPath() {
    return pluginRegistrationDir.resolve(driverName + "-reg.sock");
  }

  /**
   * Where a new registration socket is bound before it is renamed into place: the plugin watcher ignores names that
   * start with a dot, so the kubelet sees the socket appear whole, with its permissions set.
   */
  Path bindPath() {
    return pluginRegistrationDir.resolve("." + driverName + "-reg.sock.new");
  }
}
