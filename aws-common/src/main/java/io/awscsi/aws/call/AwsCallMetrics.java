package io.awscsi.aws.call;

/**
 * The names and help texts of one service's API metrics, as the upstream driver (EBS) or this driver's earlier
 * releases (EFS) spell them: dashboards and alerts use these names, so they never change.
 *
 * @param errorCodeLabel the label of the error counter that holds the AWS error code
 * @param throttleLabel the label of the throttle counter that holds the API action
 * @param timesFailedAttempts whether the duration histogram also times attempts that failed (EFS), or only answered
 *     ones (EBS, as upstream)
 * @param countsThrottlesAsErrors whether a throttled attempt also counts in the error counter (EBS, as upstream)
 */
public record AwsCallMetrics(String durationName, String durationHelp, String errorsName, String errorsHelp,
    String errorCodeLabel, String throttlesName, String throttlesHelp, String throttleLabel,
    boolean timesFailedAttempts, boolean countsThrottlesAsErrors) {

  /** Upstream aws-ebs-csi-driver's metric names and labels. */
  public static final AwsCallMetrics EC2 = new AwsCallMetrics(
      "aws_ebs_csi_api_request_duration_seconds", "EBS CSI Driver EC2 API request duration in seconds",
      "aws_ebs_csi_api_request_errors_total", "EBS CSI Driver EC2 API request errors", "code",
      "aws_ebs_csi_api_request_throttles_total", "EBS CSI Driver EC2 API requests throttled by EC2", "operation_name",
      false, true);

  /** The EFS driver's metric names, shaped like the EBS ones. */
  public static final AwsCallMetrics EFS = new AwsCallMetrics(
      "aws_efs_csi_api_request_duration_seconds", "Latency of EFS API calls in seconds",
      "aws_efs_csi_api_request_errors_total", "EFS API calls that failed, by error code", "error",
      "aws_efs_csi_api_request_throttles_total", "EFS API calls that were throttled", "request",
      true, false);
}
