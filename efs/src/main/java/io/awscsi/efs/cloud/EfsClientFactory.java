package io.awscsi.efs.cloud;

import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.services.efs.EfsClient;

/**
 * Builds an EFS client with the launcher's region, endpoint and HTTP settings and the given credentials; used for
 * cross-account clients whose credentials come from STS AssumeRole.
 */
@FunctionalInterface
public interface EfsClientFactory {

  EfsClient create(AwsCredentialsProvider credentials);
}
