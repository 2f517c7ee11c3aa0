package io.awscsi.core.provider;

/** The capacity after a controller expansion and whether the node must grow the file system. */
public record ExpandResult(long capacityBytes, boolean nodeExpansionRequired) {}
