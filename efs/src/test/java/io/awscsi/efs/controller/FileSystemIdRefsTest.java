package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.efs.controller.KubernetesValueReader.Result;
import org.junit.jupiter.api.Test;

class FileSystemIdRefsTest {

  @Test
  void aSecretsValueThatIsNoFileSystemIdIsNotQuotedButAConfigMapsIs() {
    FileSystemIdRefs.Reader reader = (kind, namespace, name, key, timeout) -> new Result.Found("s3cr3t-value");

    assertThatThrownBy(() -> FileSystemIdRefs.resolve(
        FileSystemIdRefs.parse(FileSystemIdRefs.SECRET_REF, "ns/efs/id"), reader))
        .hasMessageContaining("fileSystemIdSecretRef").hasMessageContaining("not a file system id")
        .hasMessageNotContaining("s3cr3t");
    assertThatThrownBy(() -> FileSystemIdRefs.resolve(
        FileSystemIdRefs.parse(FileSystemIdRefs.CONFIG_REF, "ns/efs/id"), reader))
        .hasMessageContaining("\"s3cr3t-value\"");
  }
}
