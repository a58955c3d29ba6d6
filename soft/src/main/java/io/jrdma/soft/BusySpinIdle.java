package io.jrdma.soft;

/** {@link IdleStrategy#busySpin()}: a spin-wait hint after every idle pass, never a sleep. */
final class BusySpinIdle implements IdleStrategy {

    @Override
    public void idle(int workCount, Sleeper sleeper) {
        if (workCount == 0) {
            Thread.onSpinWait();
        }
    }
}
