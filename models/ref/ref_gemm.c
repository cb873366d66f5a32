/*
 * ref_gemm.c - reference GEMM; see ref_gemm.h for the contract.
 */
#include "models/ref/ref_gemm.h"

#include <errno.h>

#include "models/ref/bf16.h"

static uint16_t elem_a(const uint16_t *A, size_t lda, bool trans_a, size_t i, size_t k)
{
    return trans_a ? A[k * lda + i] : A[i * lda + k];
}

static uint16_t elem_b(const uint16_t *B, size_t ldb, bool trans_b, size_t k, size_t j)
{
    return trans_b ? B[j * ldb + k] : B[k * ldb + j];
}

int ref_gemm(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, bool trans_a,
             const uint16_t *B, size_t ldb, bool trans_b, uint32_t *C, size_t ldc, bool accumulate)
{
    if (M == 0 || N == 0)
        return 0;
    if (!C || ldc < N)
        return -EINVAL;
    if (K > 0 && (!A || !B))
        return -EINVAL;
    if (lda < (trans_a ? M : K) || ldb < (trans_b ? K : N))
        return -EINVAL;

    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < N; j++) {
            uint32_t *c = &C[i * ldc + j];
            uint32_t s;
            size_t k = 0;

            if (accumulate) {
                if (K == 0)
                    continue;
                s = *c;
            } else if (K == 0) {
                s = 0; /* the empty sum */
            } else {
                /* The first product replaces the accumulator (keeps a -0 product -0). */
                s = fp32_mac_clear(elem_a(A, lda, trans_a, i, 0), elem_b(B, ldb, trans_b, 0, j));
                k = 1;
            }
            for (; k < K; k++)
                s = fp32_mac(s, elem_a(A, lda, trans_a, i, k), elem_b(B, ldb, trans_b, k, j));
            *c = s;
        }
    }
    return 0;
}
