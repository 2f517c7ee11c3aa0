package io.awscsi.aws.metadata;

import java.net.URI;

/**
 * Run in a child JVM by {@link ImdsMetadataSourcePlainHttpTest}: one IMDS fetch from the endpoint in {@code args[0]}
 * in a fresh JVM, so the test can see which classes the IMDS path loads.
 */
public final class ImdsFetchProbe {

  private ImdsFetchProbe() {}

  public static void main(String[] args) throws Exception {
    try (ImdsMetadataSource imds = ImdsMetadataSource.builder().endpoint(URI.create(args[0])).build()) {
      System.out.println("instance " + imds.fetch().instanceId());
    }
  }
}
