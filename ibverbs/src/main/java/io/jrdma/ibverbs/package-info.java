/** The native provider: the verbs API over libibverbs.so.1, bound through the FFM API (no C code, no JNI). */
package io.jrdma.ibverbs;
