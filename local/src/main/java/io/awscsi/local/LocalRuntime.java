package io.awscsi.local;

import io.awscsi.core.host.KubeletDirectory;
import io.awscsi.core.logging.LoggingSetup;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.server.CsiEndpoint;
import io.awscsi.core.server.DriverRuntime;
import io.awscsi.core.server.SocketFile;
import io.awscsi.emulation.EmulationOptions;
import io.awscsi.emulation.ebs.LoopDeviceBackend;
import io.awscsi.launcher.DriverFactories;
import io.awscsi.launcher.DriverOptions;
import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.launcher.Flags;
import io.awscsi.launcher.Main;
import io.awscsi.launcher.Usage;
import io.awscsi.realism.RealismProfile;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.apache.logging.log4j.Level;

/**
 * {@code aws-csi-driver local}: the driver's main job on embedded defaults. It starts moto behind the realism layer,
 * the IMDS emulator and an EC2 instance playing this node, serves EBS (loop-device backend) and EFS (local stand-in)
 * in {@code all} mode on their own sockets, walks volumes through their whole life, then keeps serving for calls by
 * hand until Ctrl-C, which stops everything it started.
 */
public final class LocalRuntime implements AutoCloseable {

  private final LocalAws aws;
  private final Path workDir;
  private final Map<Driver, DriverRuntime> drivers;
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

  private LocalRuntime(LocalAws aws, Path workDir, Map<Driver, DriverRuntime> drivers) {
    this.aws = aws;
    this.workDir = workDir;
    this.drivers = drivers;
  }

  /**
   * Starts emulated AWS and the given drivers under {@code workDir} (which must be short: sockets live there); the
   * nodes stage and publish only below {@code kubeletDir} (it plays the kubelet's directory and is created).
   */
  public static LocalRuntime start(Path workDir, Path kubeletDir, Set<Driver> which, RealismProfile profile,
      Map<String, String> baseEnv) throws IOException {
    Files.createDirectories(workDir);
    return start(workDir, kubeletDir, which, LocalAws.start(profile), baseEnv);
  }

  /**
   * Starts the given drivers against {@code aws} (for example {@link LocalAws#attach} in front of LocalStack); the
   * runtime owns {@code aws} from here on and closes it.
   */
  public static LocalRuntime start(Path workDir, Path kubeletDir, Set<Driver> which, LocalAws aws,
      Map<String, String> baseEnv) throws IOException {
    Map<Driver, DriverRuntime> drivers = new EnumMap<>(Driver.class);
    try {
      Files.createDirectories(workDir);
      Files.createDirectories(kubeletDir);
      Map<String, String> env = new HashMap<>(baseEnv);
      env.putAll(aws.driverEnvironment());
      for (Driver d : which) {
        DriverOptions options = DriverOptions.parse(args(d, workDir, kubeletDir), env);
        CsiEndpoint endpoint = CsiEndpoint.parse(options.endpoint());
        // Refused before anything is opened: a second run on this work directory must not touch the first's volumes.
        SocketFile.checkFree(endpoint.socketPath());
        MetricsRegistry metrics = new MetricsRegistry();
        // The emulated AWS lives as long as this run, so its volumes do too.
        var built = DriverFactories.create(options, metrics, env,
            emulation(d, workDir).opener(LoopDeviceBackend.Retention.THROW_AWAY));
        try {
          drivers.put(d, DriverRuntime.start(built.provider(),
              KubeletDirectory.resolve(options.kubeletDir()), endpoint, null, metrics, Duration.ofSeconds(5)));
        } catch (IOException | RuntimeException e) {
          DriverFactories.closeQuietly(built.provider());
          throw e;
        }
        built.awaitStartFailure().ifPresent(reason -> {
          throw new IllegalStateException(d + " driver cannot start: " + reason);
        });
      }
      return new LocalRuntime(aws, workDir, drivers);
    } catch (IOException | RuntimeException e) {
      drivers.values().forEach(DriverRuntime::close);
      aws.close();
      throw e;
    }
  }

  static String[] args(Driver d, Path workDir, Path kubeletDir) {
    Path dir = workDir.resolve(d.name().toLowerCase());
    List<String> a = new ArrayList<>(List.of("--driver", d.name().toLowerCase(), "--mode", "all",
        "--endpoint", "unix://" + dir.resolve("csi.sock"), "--kubelet-dir", kubeletDir.toString()));
    if (d == Driver.EFS) {
      a.addAll(List.of("--efs-work-dir", dir.resolve("pv").toString()));
    }
    return a.toArray(String[]::new);
  }

  /** EBS attachments as loop devices, EFS as local directories, each below the driver's work directory. */
  static EmulationOptions emulation(Driver d, Path workDir) {
    Path dir = workDir.resolve(d.name().toLowerCase());
    return EmulationOptions.both(dir.resolve("loop"), dir.resolve("root"));
  }

  public CsiEndpoint endpoint(Driver d) {
    return drivers.get(d).endpoint();
  }

  public LocalAws aws() {
    return aws;
  }

  public Path workDir() {
    return workDir;
  }

  @Override
  public void close() {
    // Both Ctrl-C's shutdown hook and the normal exit path close; only the first does the work.
    if (closed.compareAndSet(false, true)) {
      drivers.values().forEach(DriverRuntime::close);
      aws.close();
      removeWorkDir();
    }
  }

  /** Removes the work directory, but never while anything is mounted below it: that would delete volume data. */
  private void removeWorkDir() {
    try {
      String prefix = workDir.toAbsolutePath().normalize() + "/";
      List<String> mounted = io.awscsi.core.host.MountInfo.parseAll(Files.readString(Path.of("/proc/self/mountinfo")))
          .stream().map(m -> m.mountPoint().toString()).filter(m -> (m + "/").startsWith(prefix)).toList();
      if (!mounted.isEmpty()) {
        System.err.println("local runtime: keeping " + workDir + ": still mounted below it: " + mounted);
        return;
      }
      try (var walk = Files.walk(workDir)) {
        for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("local runtime: could not remove " + workDir + ": " + e.getMessage());
    }
  }

  /**
   * {@code KEY=value} lines for processes started elsewhere: the driver environment, the instance that plays this
   * node, the EFS file system; written to a temporary file and moved, so a reader never sees half of it.
   */
  static void writeEnvFile(Path file, LocalAws aws) throws IOException {
    Map<String, String> values = new LinkedHashMap<>(aws.driverEnvironment());
    values.remove("DISABLE_TAINT_WATCHER");
    values.put("AWS_LOCAL_INSTANCE_ID", aws.instanceId());
    values.put("AWS_LOCAL_ZONE", LocalAws.ZONE);
    values.put("AWS_LOCAL_FILE_SYSTEM_ID", aws.fileSystemId());
    StringBuilder text = new StringBuilder();
    values.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(temporary, text);
    Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    Flags f;
    try {
      f = Usage.LOCAL.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("aws-csi-driver local: " + e.getMessage());
      return Main.EXIT_USAGE;
    }
    if (f.bool("help")) {
      out.println(Usage.LOCAL.synopsis());
      out.print(Usage.LOCAL.help());
      return 0;
    }
    Set<Driver> which = switch (f.string("driver", "both")) {
      case "ebs" -> Set.of(Driver.EBS);
      case "efs" -> Set.of(Driver.EFS);
      case "both" -> Set.of(Driver.EBS, Driver.EFS);
      // Emulated AWS alone, for drivers run elsewhere (the local Kubernetes cluster of e2e/kube-local).
      case "none" -> Set.<Driver>of();
      default -> {
        err.println("aws-csi-driver local: --driver must be ebs, efs, both or none");
        yield null;
      }
    };
    if (which == null) {
      return Main.EXIT_USAGE;
    }
    // Driver logs go to stderr at warn by default so the walkthrough's own lines stay readable.
    LoggingSetup.configure(LoggingSetup.Format.TEXT, Level.toLevel(f.string("log-level", "warn"), Level.WARN));
    Path workDir = Path.of(f.string("work-dir", "/tmp/aws-csi-local"));
    RealismProfile profile = RealismProfile.named(f.string("profile", "realistic"));
    if (f.has("volume-initialization")) {
      try {
        profile = profile.withVolumeInitialization(f.duration("volume-initialization", Duration.ZERO));
      } catch (IllegalArgumentException e) {
        err.println("aws-csi-driver local: " + e.getMessage());
        return Main.EXIT_USAGE;
      }
    }
    out.println("Starting moto + realism layer (" + f.string("profile", "realistic")
        + " EC2 latencies and throttling), the IMDS emulator and the drivers under " + workDir + " ...");
    CountDownLatch stop = new CountDownLatch(1);
    Path kubeletDir = Path.of(f.string("kubelet-dir", workDir.toString()));
    try (LocalRuntime local = start(workDir, kubeletDir, which, profile, env)) {
      Thread hook = Thread.ofPlatform().unstarted(() -> {
        stop.countDown();
        local.close();
      });
      Runtime.getRuntime().addShutdownHook(hook);
      out.println("Emulated AWS at " + local.aws.endpoint() + ", IMDS at " + local.aws.imdsEndpoint()
          + ", this node is " + local.aws.instanceId() + " in " + LocalAws.ZONE
          + ", EFS file system " + local.aws.fileSystemId());
      for (Driver d : which) {
        out.println("  " + d.csiName() + " serving on " + local.endpoint(d));
      }
      String envFile = f.string("env-file", null);
      if (envFile != null) {
        writeEnvFile(Path.of(envFile), local.aws);
        out.println("Emulated AWS described in " + envFile);
      }
      out.flush();
      int failures = 0;
      if (!f.bool("no-lifecycle") && !which.isEmpty()) {
        LifecycleWalkthrough walk = new LifecycleWalkthrough(local.aws, kubeletDir, out);
        try {
          if (which.contains(Driver.EBS)) {
            out.println();
            out.println("EBS lifecycle on " + local.endpoint(Driver.EBS) + ":");
            walk.runEbs(local.endpoint(Driver.EBS));
          }
          if (which.contains(Driver.EFS)) {
            out.println();
            out.println("EFS lifecycle on " + local.endpoint(Driver.EFS) + ":");
            walk.runEfs(local.endpoint(Driver.EFS));
          }
        } catch (RuntimeException e) {
          err.println("lifecycle walkthrough stopped: " + e.getMessage());
        }
        walk.printSummary();
        failures = (int) walk.steps().stream().filter(s -> !s.ok()).count();
      }
      if (f.bool("exit")) {
        Runtime.getRuntime().removeShutdownHook(hook);
        return failures == 0 ? 0 : Main.EXIT_FAILURE;
      }
      if (which.isEmpty()) {
        out.println("Serving emulated AWS until SIGTERM or Ctrl-C, which stop moto and the IMDS emulator.");
        out.flush();
        stop.await();
        return 0;
      }
      Driver first = which.contains(Driver.EBS) ? Driver.EBS : Driver.EFS;
      out.println();
      out.println("The drivers keep serving. Try calls by hand, e.g.:");
      out.println("  dist/aws-csi-driver/bin/aws-csi-driver client --endpoint " + local.endpoint(first)
          + " GetPluginInfo");
      out.println("  dist/aws-csi-driver/bin/aws-csi-driver client --endpoint " + local.endpoint(first)
          + " NodeGetInfo");
      out.println("  grpcurl -plaintext -unix -import-path proto/target/csi-proto/patched -proto csi.proto "
          + local.endpoint(first).socketPath() + " csi.v1.Identity/GetPluginInfo");
      out.println("Ctrl-C stops the drivers, the emulators and removes loop devices and mounts.");
      stop.await();
      return 0;
    } catch (Exception e) {
      err.println("aws-csi-driver local: " + e.getMessage());
      return Main.EXIT_FAILURE;
    }
  }
}
