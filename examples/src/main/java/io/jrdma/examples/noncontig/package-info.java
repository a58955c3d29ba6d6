/**
 * {@code jrdma noncontig}: moving non-contiguous data (block_num blocks of block_size bytes, stride bytes apart)
 * with scatter/gather lists — gather WRITE, scatter READ, gather SEND + scatter RECV — against packing the blocks
 * into a contiguous buffer with the CPU, transferring it, and unpacking it. {@link
 * io.jrdma.examples.noncontig.Noncontig} runs the benchmark; the results go to a console table, a CSV file and a
 * plot ({@link io.jrdma.examples.noncontig.Plot}, SVG or PNG).
 */
package io.jrdma.examples.noncontig;
