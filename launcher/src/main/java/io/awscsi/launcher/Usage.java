package io.awscsi.launcher;

/** The --help text. */
final class Usage {

  private Usage() {}

  static final String TEXT = """
      aws-csi-driver: CSI driver for Amazon EBS (ebs.csi.aws.com) and Amazon EFS (efs.csi.aws.com)

      aws-csi-driver [serve] --driver ebs|efs --mode controller|node|all [flags]
      aws-csi-driver local [--driver ebs|efs|both] [--no-lifecycle] [--socket-dir DIR]
      aws-csi-driver client [--endpoint unix:///path] RPC ['{json request}']
      aws-csi-driver diagnose pvc|pod|volumesnapshot NAMESPACE/NAME | pv NAME [-o json] [--since 1h]
                                          which stage of a volume is stuck and which log says why (diagnose --help)
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
           --vol-metrics-refresh-period 240m  --vol-metrics-fs-rate-limit 5  --force-unmount-after-timeout
           --unmount-timeout 30s  --max-inflight-mount-calls N  --efs-mount-backend efs-utils|local
           --efs-local-root DIR
      Environment: AWS_REGION, AWS_ENDPOINT_URL[_EC2|_EFS|_STS], CSI_NODE_NAME, DISABLE_TAINT_WATCHER,
                   AWS_EC2_METADATA_DISABLED
      """;
}
