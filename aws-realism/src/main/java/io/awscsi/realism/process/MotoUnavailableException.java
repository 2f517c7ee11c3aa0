package io.awscsi.realism.process;

/** moto's server is not installed on this machine. */
public final class MotoUnavailableException extends IllegalStateException {

  public MotoUnavailableException(String detail) {
    super("moto's server is not available (" + detail + "): install it with pip install 'moto[server]'");
  }
}
