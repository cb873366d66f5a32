/*
 * ref_gemm.h - reference GEMM under the flashstream numerics contract (docs/sources.md).
 *
 * What is modelled: C = A * B (or C += A * B) with bf16 A and B and fp32 C, every element
 * computed as the PE computes it: the dot product runs over k in ascending order, one
 * fp32_mac() per k, so results equal the systolic array's bit for bit. Plain loops; it shares
 * no code with any optimized path and is meant to be read, not to be fast.
 *
 * What is not modelled: timing, tiling, the array's skew. Only the order of the sum matters for
 * the bits, and it is fixed: ascending k.
 *
 * Units and layout: all matrices are row-major with a leading dimension in elements.
 *   A is M x K:  element (i, k) is A[i * lda + k];   with trans_a, A is stored K x M and
 *                element (i, k) is A[k * lda + i].
 *   B is K x N:  element (k, j) is B[k * ldb + j];   with trans_b, B is stored N x K and
 *                element (k, j) is B[j * ldb + k].
 *   C is M x N:  element (i, j) is C[i * ldc + j], raw fp32 bit patterns (uint32_t), so that
 *                comparisons are exact and no host float ever touches the stored value.
 * bf16 values are raw bit patterns (uint16_t), see models/ref/bf16.h.
 */
#ifndef FLASHSTREAM_MODELS_REF_REF_GEMM_H
#define FLASHSTREAM_MODELS_REF_REF_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * ref_gemm - C[i][j] = dot over k = 0..K-1 of A(i, k) * B(k, j), in ascending k.
 *
 * accumulate == false: the clear rule, s = fp32_mac_clear(A(i,0), B(0,j)), then
 *                      s = fp32_mac(s, A(i,k), B(k,j)) for k = 1..K-1. With K == 0 (an empty
 *                      sum) C[i][j] = +0.
 * accumulate == true:  s = C[i][j], then s = fp32_mac(s, A(i,k), B(k,j)) for k = 0..K-1; the
 *                      old C is read flushed like any operand. With K == 0, C is left untouched.
 *
 * Only the M x N elements of C are written; padding between rows is left alone.
 * Returns 0, or -EINVAL when a pointer needed for the work is NULL or a leading dimension is
 * smaller than its row length (lda < (trans_a ? M : K), ldb < (trans_b ? K : N), ldc < N).
 */
int ref_gemm(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, bool trans_a,
             const uint16_t *B, size_t ldb, bool trans_b, uint32_t *C, size_t ldc, bool accumulate);

#endif /* FLASHSTREAM_MODELS_REF_REF_GEMM_H */
