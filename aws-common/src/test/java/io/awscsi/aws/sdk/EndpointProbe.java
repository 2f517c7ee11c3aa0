package io.awscsi.aws.sdk;

import io.awscsi.aws.Environment;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.efs.EfsClient;
import software.amazon.awssdk.services.sts.StsClient;

/**
 * Run in a child JVM by {@link AwsEndpointEnvironmentTest}: builds EC2, EFS and STS clients from the real process
 * environment and makes one call with each, so the test can see where the SDK sent them.
 */
public final class EndpointProbe {

  private EndpointProbe() {}

  public static void main(String[] args) {
    AwsClientConfig config = AwsClientConfig.builder(Environment.system()).build();
    try (Ec2Client ec2 = config.configure(Ec2Client.builder(), AwsService.EC2).build();
        EfsClient efs = config.configure(EfsClient.builder(), AwsService.EFS).build();
        StsClient sts = config.configure(StsClient.builder(), AwsService.STS).build()) {
      call("ec2", ec2::describeAvailabilityZones);
      call("efs", efs::describeFileSystems);
      call("sts", sts::getCallerIdentity);
    }
  }

  private static void call(String name, Runnable call) {
    try {
      call.run();
      System.out.println(name + ": ok");
    } catch (SdkException e) {
      // The recording servers answer with errors; the request having arrived is what counts.
      System.out.println(name + ": " + e.getClass().getSimpleName());
    }
  }
}
