package io.jrdma.examples.noncontig;

/**
 * A non-contiguous layout: {@code blockNum} blocks of {@code blockSize} bytes, the start of each {@code stride}
 * bytes after the start of the one before (so {@code stride - blockSize} bytes of gap between blocks). The blocks
 * in order form the message: block {@code i} holds message bytes {@code [i * blockSize, (i + 1) * blockSize)}.
 *
 * @param blockSize bytes per block, at least 1
 * @param blockNum  number of blocks, at least 1
 * @param stride    distance in bytes between the starts of two blocks, at least {@code blockSize}
 */
public record Layout(int blockSize, int blockNum, long stride) {

    /** The largest message (the blocks' bytes together) a layout may have: 256 MiB. */
    public static final long MAX_MESSAGE = 256L << 20;
    /** The largest memory span a layout may cover: 1 GiB. */
    public static final long MAX_SPAN = 1L << 30;

    /**
     * Checks the layout.
     *
     * @throws IllegalArgumentException naming the bad value: a size below 1, a stride below the block size, or a
     *                                  message or span too large
     */
    public Layout {
        if (blockSize < 1) {
            throw new IllegalArgumentException("block_size must be at least 1, not " + blockSize);
        }
        if (blockNum < 1) {
            throw new IllegalArgumentException("block_num must be at least 1, not " + blockNum);
        }
        if (stride < blockSize) {
            throw new IllegalArgumentException("stride (" + stride + ") must be at least block_size (" + blockSize
                    + "): blocks may not overlap");
        }
        if ((long) blockSize * blockNum > MAX_MESSAGE) {
            throw new IllegalArgumentException("block_size x block_num = " + (long) blockSize * blockNum
                    + " bytes is more than the largest message, " + MAX_MESSAGE + " bytes");
        }
        if ((blockNum - 1) * stride + blockSize > MAX_SPAN) {
            throw new IllegalArgumentException("the layout spans " + ((blockNum - 1) * stride + blockSize)
                    + " bytes, more than " + MAX_SPAN + " bytes");
        }
    }

    /** The default layout of a sweep: stride twice the block size (half of the span is gaps). */
    public static Layout withDefaultStride(int blockSize, int blockNum) {
        return new Layout(blockSize, blockNum, 2L * blockSize);
    }

    /** The message size: the bytes of all blocks together. */
    public long messageBytes() {
        return (long) blockSize * blockNum;
    }

    /** The memory the layout covers, from the first byte of the first block to the last byte of the last. */
    public long span() {
        return (blockNum - 1) * stride + blockSize;
    }

    /** The offset of block {@code i} from the start of the layout. */
    public long blockOffset(int i) {
        return i * stride;
    }

    /** Work requests needed when one request may carry at most {@code maxSge} blocks. */
    public int workRequests(int maxSge) {
        return (blockNum + maxSge - 1) / maxSge;
    }

    @Override
    public String toString() {
        return "block_size " + blockSize + ", block_num " + blockNum + ", stride " + stride;
    }
}
