package io.awscsi.realism;

/** A fault added with {@code RealismProxy.injectFault}; close or remove it to stop it. */
public interface InjectedFault extends AutoCloseable {

  /** How many calls the fault has answered so far. */
  int hits();

  void remove();

  @Override
  default void close() {
    remove();
  }
}
