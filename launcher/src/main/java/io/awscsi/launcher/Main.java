package io.awscsi.launcher;

import io.awscsi.core.host.KubeletDirectory;
import io.awscsi.core.logging.CallRecordingInterceptor;
import io.awscsi.core.logging.LoggingSetup;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.metrics.ProcessMetrics;
import io.awscsi.core.registration.KubeletRegistration;
import io.awscsi.core.registration.RegistrationSettings;
import io.awscsi.core.server.CsiEndpoint;
import io.awscsi.core.server.DriverRuntime;
import io.awscsi.core.server.HttpEndpoint;
import io.awscsi.core.server.SocketFile;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The composition root: flags -> options -> one provider wired into driver-core -> serve until SIGTERM.
 * Subcommands: {@code client} (call an RPC by hand), {@code diagnose} (which stage of a volume is stuck, from the
 * Kubernetes API; its jar is in lib/diagnose), {@code pre-stop-hook} (EBS node preStop), {@code remove-startup-taint}
 * (the node's child process for its taint). {@code local} (the local runtime on emulated AWS) and {@code emulated}
 * (the driver with loop devices and local directories in place of EC2's attachments and EFS mounts) run from
 * lib/local, which the launcher script puts on their class path alone: the application jar holds no emulator, and
 * the emulated driver reaches this composition root through {@link #serve(String[], Map, PrintStream, PrintStream,
 * DriverSeams.Opener)}.
 */
public final class Main {

  /** Exit code for a configuration error the operator must fix. */
  public static final int EXIT_USAGE = 2;
  public static final int EXIT_FAILURE = 1;
  private static final Duration START_SETTLE = Duration.ofSeconds(3);

  private Main() {}

  public static void main(String[] args) {
    int code = run(args, System.getenv(), System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    // "-v=2" (klog's one dash) is a flag, not a subcommand.
    if (args.length > 0 && !args[0].startsWith("-")) {
      String[] rest = Arrays.copyOfRange(args, 1, args.length);
      return switch (args[0]) {
        case "local" -> {
          // The emulators and the walkthrough are not in the application jar: the launcher script puts lib/local on
          // the class path and starts io.awscsi.local.LocalMain for this subcommand alone.
          err.println("aws-csi-driver: local runs from the distribution's launcher script (bin/aws-csi-driver local),"
              + " which adds lib/local to the class path");
          yield EXIT_USAGE;
        }
        case "emulated" -> {
          err.println("aws-csi-driver: emulated runs from the distribution's launcher script (bin/aws-csi-driver"
              + " emulated), which adds lib/local to the class path");
          yield EXIT_USAGE;
        }
        case "client" -> client(rest, env, out, err);
        case "pre-stop-hook" -> PreStopHook.run(env, err);
        case StartupTaintCommand.NAME -> StartupTaintCommand.run(rest, env, err);
        // In lib/diagnose, on the class path of this subcommand alone (bin/aws-csi-driver): never loaded by a driver.
        case "diagnose" -> {
          LoggingSetup.configure(LoggingSetup.Format.TEXT, Level.WARN);
          yield io.awscsi.diagnose.DiagnoseCommand.run(rest, out, err);
        }
        case "serve" -> serve(rest, env, out, err);
        // Upstream's mode as the first argument, as its chart passes it: the serving driver reads it from args.
        case "controller", "node", "all" -> serve(args, env, out, err);
        default -> {
          err.println("unknown subcommand " + args[0] + "; use serve (default), controller, node, all, local, emulated,"
              + " client, diagnose,"
              + " pre-stop-hook or " + StartupTaintCommand.NAME);
          yield EXIT_USAGE;
        }
      };
    }
    return serve(args, env, out, err);
  }

  static int serve(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    return serve(args, env, out, err, DriverSeams.Opener.NONE);
  }

  /**
   * Serves until SIGTERM with the given seams (opened once the endpoint is found free, before anything else of the
   * driver): the serving driver's are none; another entry point's put other parts in place of those built for AWS.
   *
   * @return the process's exit code
   */
  public static int serve(String[] args, Map<String, String> env, PrintStream out, PrintStream err,
      DriverSeams.Opener seams) {
    DriverOptions options;
    CsiEndpoint endpoint;
    InetSocketAddress http;
    try {
      if (Arrays.asList(args).contains("--version")) {
        out.println("aws-csi-driver " + BuildInfo.version());
        return 0;
      }
      if (Arrays.asList(args).contains("--help")) {
        out.println(Usage.text());
        return 0;
      }
      options = DriverOptions.parse(args, env);
      endpoint = CsiEndpoint.parse(options.endpoint());
      http = options.httpEndpoint().isEmpty() ? null : HttpEndpoint.parseAddress(options.httpEndpoint());
    } catch (IllegalArgumentException e) {
      err.println("aws-csi-driver: " + e.getMessage());
      return EXIT_USAGE;
    }
    try {
      // Before anything is opened or read: a start refused for its endpoint touches nothing (no loop device, no file
      // of the process already serving there).
      SocketFile.checkFree(endpoint.socketPath());
    } catch (IOException e) {
      err.println("aws-csi-driver: " + e.getMessage());
      return EXIT_USAGE;
    }
    LoggingSetup.configure(options.logFormat(), options.logLevel());
    var log = LogManager.getLogger(Main.class);
    MetricsRegistry metrics = new MetricsRegistry();
    ProcessMetrics.register(metrics);
    DriverRuntime runtime;
    DriverFactories.Built driver;
    KubeletDirectory kubelet = options.mode().node() ? kubeletDirectory(options.kubeletDir(), log) : null;
    try {
      driver = DriverFactories.create(options, metrics, env, seams);
    } catch (Exception e) {
      log.error("cannot start {} in {} mode: {}", options.driver().csiName(), options.mode(), e.getMessage());
      err.println("aws-csi-driver: cannot start: " + e.getMessage());
      return EXIT_FAILURE;
    }
    try {
      runtime = DriverRuntime.start(driver.provider(), kubelet, endpoint, http, metrics,
          options.shutdownGrace());
    } catch (Exception e) {
      // Releases clients and the seams (an emulated driver's loop devices keep every volume as it is).
      DriverFactories.closeQuietly(driver.provider());
      log.error("cannot start {} in {} mode: {}", options.driver().csiName(), options.mode(), e.getMessage());
      err.println("aws-csi-driver: cannot start: " + e.getMessage());
      return e instanceof SocketFile.EndpointInUseException ? EXIT_USAGE : EXIT_FAILURE;
    }
    // The node's metadata was read while the server started; without it the node cannot answer NodeGetInfo.
    Optional<String> failure = driver.awaitStartFailure();
    if (failure.isPresent()) {
      log.error("cannot start {} in {} mode: {}", options.driver().csiName(), options.mode(), failure.get());
      err.println("aws-csi-driver: cannot start: " + failure.get());
      runtime.close();
      return EXIT_FAILURE;
    }
    // The kubelet registers the driver once it finds the registration socket and calls NodeGetInfo right after, so the
    // socket appears only once the node info is there.
    if (options.registration().isPresent()) {
      DriverOptions.Registration r = options.registration().get();
      RegistrationSettings settings = RegistrationSettings.of(options.driver().csiName(), r.kubeletRegistrationPath(),
          r.pluginRegistrationDir());
      try {
        runtime.startSidecar(binder -> KubeletRegistration.start(settings, binder, metrics));
      } catch (Exception e) {
        log.error("cannot start {} in {} mode: {}", options.driver().csiName(), options.mode(), e.getMessage());
        err.println("aws-csi-driver: cannot start: " + e.getMessage());
        runtime.close();
        return EXIT_FAILURE;
      }
    }
    driver.afterStart().run();
    // Start-up garbage (configuration, class initialisation) goes once the sidecars' first calls are answered, so the
    // heap shrinks to what serving needs without pausing those calls; so does what a busy spell grew, once it is over.
    // (The runtime's call interceptor registered the counter with its labels already: this looks it up.)
    MetricsRegistry.Counter calls = metrics.counter(CallRecordingInterceptor.CALLS_METRIC, "");
    HeapCompaction.start(START_SETTLE, () -> calls.sum(labels -> HeapCompaction.isWork(labels.getFirst())));
    // SIGTERM and SIGINT run shutdown hooks: stop accepting calls, let running ones finish, remove the socket.
    Thread hook = Thread.ofPlatform().name("shutdown").unstarted(runtime::close);
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      runtime.awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  static int client(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    try {
      Flags f = Usage.CLIENT.parse(args);
      if (f.positional().isEmpty()) {
        err.println("usage: aws-csi-driver client [--endpoint unix:///path] RPC ['{json request}']");
        return EXIT_USAGE;
      }
      String endpoint = f.string("endpoint", env.getOrDefault("CSI_ENDPOINT", "unix:///tmp/csi.sock"));
      CsiEndpoint.parse(endpoint);
      return CsiClient.run(endpoint, f.positional().get(0), f.positional().size() > 1 ? f.positional().get(1) : "{}",
          out, err);
    } catch (IllegalArgumentException e) {
      err.println("aws-csi-driver client: " + e.getMessage());
      return EXIT_USAGE;
    }
  }

  /**
   * The node's kubelet directory, resolved once here (a directory that is itself a link is followed now, so its
   * paths compare as the kernel reports them). One that does not exist yet is kept as configured: a path below it is
   * still resolved through its existing parents, and refused when that leads elsewhere.
   */
  static KubeletDirectory kubeletDirectory(Path configured, Logger log) {
    try {
      KubeletDirectory kubelet = KubeletDirectory.resolve(configured);
      log.info("node paths are confined below the kubelet directory {}{}", kubelet.root(),
          kubelet.root().equals(configured) ? "" : " (--kubelet-dir " + configured + ")");
      return kubelet;
    } catch (IOException e) {
      log.warn("--kubelet-dir {}: {}; node calls are confined below it as configured", configured, e.getMessage());
      return new KubeletDirectory(configured);
    }
  }
}
