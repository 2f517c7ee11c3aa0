package io.awscsi.core.host;

/** Space and inodes of a mounted file system, as statfs(2) reports them to an unprivileged user. */
public record FileSystemUsage(
    long totalBytes, long usedBytes, long availableBytes, long totalInodes, long usedInodes, long freeInodes) {}
