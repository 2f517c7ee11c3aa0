package io.awscsi.realism.proxy;

/** The emulated service (moto) refused an internal call; its answer goes back to the client unchanged. */
public final class UpstreamErrorException extends RuntimeException {

  private final transient ProxyResponse response;

  public UpstreamErrorException(ProxyResponse response) {
    super("upstream answered HTTP " + response.status(), null, false, false);
    this.response = response;
  }

  public ProxyResponse response() {
    return response;
  }
}
