package io.awscsi.efs.controller;

/** Whether DeleteVolume may remove a volume's directory. */
public sealed interface DirectoryDeletion {

  /** Remove this clean absolute path of the file system. */
  record Remove(String path) implements DirectoryDeletion {}

  /** Keep the data; {@code reason} tells the operator why (logged as a warning). */
  record Keep(String reason) implements DirectoryDeletion {}

  /** There is nothing left to delete (a repeated DeleteVolume). */
  record Gone() implements DirectoryDeletion {}
}
