package io.awscsi.local;

/**
 * {@code aws-csi-driver local}: the entry point the launcher script starts, with lib/local (this module, the realism
 * layer and the emulator process helpers) on the class path. Serving processes never load it.
 */
public final class LocalMain {

  private LocalMain() {}

  public static void main(String[] args) {
    int code = LocalRuntime.run(args, System.getenv(), System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }
}
