package io.awscsi.realism;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.efs.EfsClient;

/** SDK clients for tests: dummy credentials, us-east-1, no retries (tests look at each answer). */
public final class AwsClients {

  private static final StaticCredentialsProvider CREDENTIALS =
      StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDREALISMTEST", "secret"));

  private AwsClients() {}

  public static Ec2Client ec2(URI endpoint) {
    return Ec2Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(CREDENTIALS)
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  public static EfsClient efs(URI endpoint) {
    return EfsClient.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(CREDENTIALS)
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }
}
