// SPDX-License-Identifier: Apache-2.0
/**
 * Java Foreign Function &amp; Memory (FFM) bindings to the two native libraries the host runtime
 * drives: the NVIDIA CUDA driver API ({@code libcuda.so.1}, see {@link org.direkt.runtime.ffi.Cuda})
 * and OpenCL through the ICD loader ({@code libOpenCL.so.1}, see {@link org.direkt.runtime.ffi.OpenCl}
 * and the high-level {@link org.direkt.runtime.ffi.ClContext}).
 *
 * <p>No JNI and no native artifacts: the libraries are opened with
 * {@link java.lang.foreign.SymbolLookup#libraryLookup(String, java.lang.foreign.Arena)} and every
 * function is bound once, as a downcall handle, when its library is loaded. The JVM must grant
 * native access to the code of this package ({@code --enable-native-access=ALL-UNNAMED}, or the
 * module name when it runs as a module).
 *
 * <p>Errors: a library that cannot be opened raises {@link org.direkt.runtime.ffi.NativeLibraryException};
 * a failing CUDA call raises {@link org.direkt.runtime.ffi.CudaException}, a failing OpenCL call
 * {@link org.direkt.runtime.ffi.OpenClException}. All three are unchecked and their messages name
 * the call, the numeric code and its symbolic name.
 *
 * <p>The calls that the JDK classes as restricted (linking, library lookup, widening a native
 * pointer) are confined to {@code NativeSupport}, whose few methods carry
 * {@code @SuppressWarnings("restricted")}.
 */
package org.direkt.runtime.ffi;
