package io.awscsi.realism;

import io.awscsi.realism.process.MotoServer;
import java.net.URI;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the realism proxy standalone on a loopback port so that any EC2/EFS client (another driver included) can use
 * it: {@code --upstream http://127.0.0.1:PORT} or {@code --start-moto}, {@code --port N} (0 = any),
 * {@code --profile realistic|fast|instant}, {@code --seed N}. Ctrl-C stops it and the moto it started.
 */
public final class RealismProxyMain {

  private record Options(URI upstream, boolean startMoto, int port, RealismProfile profile, String profileName,
                         long seed) {}

  private RealismProxyMain() {}

  public static void main(String[] args) throws InterruptedException {
    Options options;
    try {
      options = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("realism-proxy: " + e.getMessage());
      System.err.println(usage());
      System.exit(2);
      return;
    }
    MotoServer moto = options.startMoto() ? MotoServer.start() : null;
    URI upstream = moto != null ? moto.endpoint() : options.upstream();
    RealismProxy proxy = RealismProxy.builder().upstream(upstream).port(options.port()).profile(options.profile())
        .seed(options.seed()).start();
    var stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
      proxy.close();
      if (moto != null) {
        moto.close();
      }
      stopped.countDown();
    }));
    System.out.println("realism proxy: endpoint=" + proxy.endpoint() + " upstream=" + upstream + " profile="
        + options.profileName());
    System.out.println("realism proxy: stats at " + proxy.endpoint() + "/realism/stats; Ctrl-C stops it"
        + (moto != null ? " and moto" : ""));
    System.out.flush();
    stopped.await();
  }

  private static Options parse(String[] args) {
    URI upstream = null;
    boolean startMoto = false;
    int port = 0;
    String profileName = "realistic";
    long seed = 42;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--upstream" -> upstream = URI.create(value(args, ++i, arg));
        case "--start-moto" -> startMoto = true;
        case "--port" -> port = Integer.parseInt(value(args, ++i, arg));
        case "--profile" -> profileName = value(args, ++i, arg);
        case "--seed" -> seed = Long.parseLong(value(args, ++i, arg));
        case "--help", "-h" -> throw new IllegalArgumentException("help requested");
        default -> throw new IllegalArgumentException("unknown argument '" + arg + "'");
      }
    }
    if (startMoto == (upstream != null)) {
      throw new IllegalArgumentException("give exactly one of --upstream URL and --start-moto");
    }
    return new Options(upstream, startMoto, port, RealismProfile.named(profileName), profileName, seed);
  }

  private static String value(String[] args, int index, String flag) {
    if (index >= args.length) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return args[index];
  }

  private static String usage() {
    return "usage: RealismProxyMain (--upstream http://127.0.0.1:PORT | --start-moto) [--port N] "
        + "[--profile realistic|fast|instant] [--seed N]";
  }
}
