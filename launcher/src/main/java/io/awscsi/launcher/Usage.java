package io.awscsi.launcher;

/** The --help text. */
final class Usage {

  private Usage() {}

  static final String TEXT = """
      aws-csi-driver: CSI driver for Amazon EBS (ebs.csi.aws.com) and Amazon EFS (efs.csi.aws.com)

      aws-csi-driver [serve] --driver ebs|efs --mode controller|node|all [flags]
      aws-csi-driver local [--driver ebs|efs|both] [--no-lifecycle] [--socket-dir DIR]
      aws-csi-driver client [--endpoint unix:///path] RPC ['{json request}']
      aws-csi-driver pre-stop-hook
      aws-csi-driver remove-startup-taint --driver ebs|efs   (the node runs it as a child process)

      Common flags:
        --endpoint unix:///csi/csi.sock     CSI socket (env CSI_ENDPOINT); unix:/abs/path also accepted
        --http-endpoint :3301               serve /healthz and Prometheus /metrics
        --log-format text|json              --log-level info|debug
        --shutdown-grace 25s                time running calls get after SIGTERM
      EBS: --extra-tags k=v,k2=v2  --k8s-tag-cluster-id ID  --modify-volume-request-handler-timeout 2s
           --volume-attach-limit N  --reserved-volume-attachments N  --legacy-xfs
           --device-backend nvme|loop  --loop-state-dir DIR   (loop: the local runtime's devices)
      EFS: --tags "k:v k2:v2"  --delete-access-point-root-dir  --vol-metrics-opt-in
           --vol-metrics-refresh-period 240 (minutes, or 240m)  --vol-metrics-fs-rate-limit 5
           --force-unmount-after-timeout  --unmount-timeout 30s
           --max-inflight-mount-calls-opt-in --max-inflight-mount-calls N   (NodePublish beyond N: ABORTED)
           --volume-attach-limit-opt-in --volume-attach-limit N             (the node's MaxVolumesPerNode)
           --efs-utils-conf-overrides section:key=value,...  --efs-cloudwatch-log-enabled
           --efs-utils-config-dir-path /var/amazon/efs  --efs-utils-config-legacy-dir-path /etc/amazon/efs-legacy
           --efs-utils-static-files-path /etc/amazon/efs-static-files
           --efs-mount-watchdog-path PATH   (default: amazon-efs-mount-watchdog on PATH; the node keeps it running)
           --efs-utils-etc-dir-path /etc/amazon/efs  --efs-state-dir-path /var/run/efs   (tests and stand-ins)
           --efs-mount-backend efs-utils|local  --efs-local-root DIR
      Environment: AWS_REGION, AWS_ENDPOINT_URL[_EC2|_EFS|_STS], CSI_NODE_NAME, DISABLE_TAINT_WATCHER,
                   AWS_EC2_METADATA_DISABLED; EFS node: AWS_DEFAULT_REGION, FIPS_ENABLED, PORT_RANGE_UPPER_BOUND
      """;
}
