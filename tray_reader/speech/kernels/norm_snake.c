/* tray-reader: one onnxruntime custom operator for the decoder's AdaIN + snake + quantise.
 *
 * NormSnakeQuantize(x, scale, bias, alpha, inverse, y_scale, y_zero_point) -> y
 *   x             float [N, C, T]
 *   scale, bias   float [C]        the instance norm's (1 + gamma, beta: the AdaIN)
 *   alpha, inverse float [C]       the snake's alpha and 1 / alpha
 *   y_scale       float scalar     QuantizeLinear's scale
 *   y_zero_point  uint8 scalar     QuantizeLinear's zero point
 *   attribute epsilon (float)      the instance norm's
 *   y             uint8 [N, C, T]
 *
 *   h = scale[c] * (x - mean_t x) / sqrt(var_t x + epsilon) + bias[c]
 *   s = h + inverse[c] * sin(alpha[c] * h)^2
 *   y = saturate(round_half_even(s / y_scale) + y_zero_point)
 *
 * In the graph these are InstanceNormalization, the snake's Mul/Sin/Pow/Mul/Add and a
 * QuantizeLinear: about a dozen passes over the tensor, each run on one core by
 * onnxruntime. Here each channel's row is read twice for its mean and variance (it stays
 * in the cache) and once more for the result.
 *
 * The library talks to onnxruntime through its C API, a table of function pointers that
 * only ever grows: the entries used here are looked up by their position in version 1 of
 * that table (API_* below), and the operator is declared as a version 8 OrtCustomOp (the
 * first with all the fields onnxruntime now reads). So no onnxruntime header is needed to
 * build it; the tests run it against the same arithmetic in NumPy.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct OrtStatus OrtStatus;
typedef struct {
    const void *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} OrtApiBase;

/* Positions in OrtApi (version 1). */
enum {
    API_CREATE_CUSTOM_OP_DOMAIN = 26,
    API_CUSTOM_OP_DOMAIN_ADD = 27,
    API_ADD_CUSTOM_OP_DOMAIN = 28,
    API_GET_TENSOR_MUTABLE_DATA = 51,
    API_GET_DIMENSIONS_COUNT = 61,
    API_GET_DIMENSIONS = 62,
    API_GET_TENSOR_TYPE_AND_SHAPE = 65,
    API_KERNEL_INFO_GET_ATTRIBUTE_FLOAT = 85,
    API_KERNEL_CONTEXT_GET_INPUT = 90,
    API_KERNEL_CONTEXT_GET_OUTPUT = 91,
    API_RELEASE_STATUS = 93,
    API_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO = 99,
};

enum { TYPE_FLOAT = 1, TYPE_UINT8 = 2 };
#define N_INPUTS 7
#define MAX_DIMS 8

static void *const *api;
#define CALL(index, type, ...) (((type)api[index])(__VA_ARGS__))

typedef OrtStatus *(*status_fn_ptr_ptr)(const void *, void **);
typedef OrtStatus *(*status_fn_str_ptr)(const char *, void **);
typedef OrtStatus *(*status_fn_ptr_cptr)(void *, const void *);
typedef OrtStatus *(*status_fn_size)(const void *, size_t *);
typedef OrtStatus *(*status_fn_dims)(const void *, int64_t *, size_t);
typedef OrtStatus *(*status_fn_attr_float)(const void *, const char *, float *);
typedef OrtStatus *(*status_fn_input)(const void *, size_t, const void **);
typedef OrtStatus *(*status_fn_output)(void *, size_t, const int64_t *, size_t, void **);
typedef void (*release_fn)(void *);

/* Runs that could not be computed (see compute): for tests and debugging. */
static long failed_runs; /* updated atomically: sessions may run on several threads */

long tray_reader_norm_snake_failures(void) { return __atomic_load_n(&failed_runs, __ATOMIC_RELAXED); }

/* --- the arithmetic ---------------------------------------------------------------- */

typedef float floats8 __attribute__((vector_size(32)));

/* sin(pi r)^2 for |r| <= 1/2: Taylor to the 11th power of pi r (error < 6e-8). */
static inline __attribute__((always_inline)) float sin2_pi(float r) {
    const float t = 3.14159265358979f * r, t2 = t * t;
    float p = -2.50521084e-8f * t2 + 2.75573192e-6f;
    p = p * t2 - 1.98412698e-4f;
    p = p * t2 + 8.33333333e-3f;
    p = p * t2 - 1.66666667e-1f;
    const float s = t + t * t2 * p;
    return s * s;
}

/* Round to the nearest integer, ties to even (as QuantizeLinear does), for |v| < 2^22:
 * adding and taking away 1.5 * 2^23 leaves no fraction bits. Unlike rintf, this
 * vectorises without relaxing any floating-point rule. */
static inline __attribute__((always_inline)) float round_even(float v) {
    return (v + 12582912.0f) - 12582912.0f;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define VECTOR_CLONES
#endif

#define TILE 256
#define BLOCK 1024

/* Sums over x[0..n) of x - center (``square`` 0) or of (x - center)^2 (``square`` 1): in
 * float vectors within blocks, in double across them. A plain running sum has a strict
 * order of additions, which the compiler keeps: one scalar add at a time. */

static inline __attribute__((always_inline)) double sum_of(const float *x, size_t n, float center, int square) {
    double total = 0.0;
    for (size_t start = 0; start < n; start += BLOCK) {
        const size_t end = start + BLOCK < n ? start + BLOCK : n;
        floats8 acc0 = {0}, acc1 = {0};
        size_t t = start;
        for (; t + 16 <= end; t += 16) {
            floats8 v0, v1;
            memcpy(&v0, x + t, sizeof v0);
            memcpy(&v1, x + t + 8, sizeof v1);
            v0 -= center;
            v1 -= center;
            acc0 += square ? v0 * v0 : v0;
            acc1 += square ? v1 * v1 : v1;
        }
        float rest = 0.0f;
        for (; t < end; t++) rest += square ? (x[t] - center) * (x[t] - center) : x[t] - center;
        const floats8 acc = acc0 + acc1;
        for (int j = 0; j < 8; j++) total += acc[j];
        total += rest;
    }
    return total;
}

/* One channel's row: mean and variance (two passes over a row that stays in the cache),
 * then the result. */
VECTOR_CLONES
static void norm_snake_row(const float *x, size_t n, float scale, float bias, float alpha, float inverse,
                           float epsilon, float y_scale, float zero, uint8_t *y) {
    const double mean = n ? sum_of(x, n, 0.0f, 0) / (double)n : 0.0;
    const double var = n ? sum_of(x, n, (float)mean, 1) / (double)n : 0.0;
    const float a = (float)(scale / sqrt(var + epsilon));
    const float b = (float)(bias - mean * a);
    const float turns = alpha * 0.318309886183791f; /* alpha / pi: sin(alpha h) = sin(pi u) */
    const float ua = a * turns, ub = b * turns;
    const float to_steps = 1.0f / y_scale;
    /* In tiles: the arithmetic runs on whole float vectors, and the narrowing to bytes
     * after it (together, the compiler ran out of vector registers: 2x the time). */
    float q[TILE];
    for (size_t start = 0; start < n; start += TILE) {
        const size_t len = n - start < TILE ? n - start : TILE;
        const float *xs = x + start;
        for (size_t t = 0; t < len; t++) {
            const float h = a * xs[t] + b, u = ua * xs[t] + ub;
            const float v = (h + inverse * sin2_pi(u - round_even(u))) * to_steps + zero;
            q[t] = round_even(v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v));
        }
        for (size_t t = 0; t < len; t++) y[start + t] = (uint8_t)(int32_t)q[t];
    }
}

/* --- the operator ------------------------------------------------------------------- */

typedef struct {
    float epsilon;
} Kernel;

static int dims_of(const void *value, int64_t *dims, size_t *count) {
    void *info = NULL;
    int ok = CALL(API_GET_TENSOR_TYPE_AND_SHAPE, status_fn_ptr_ptr, value, &info) == NULL;
    ok = ok && CALL(API_GET_DIMENSIONS_COUNT, status_fn_size, info, count) == NULL && *count <= MAX_DIMS;
    ok = ok && CALL(API_GET_DIMENSIONS, status_fn_dims, info, dims, *count) == NULL;
    if (info) CALL(API_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO, release_fn, info);
    return ok;
}

static int64_t elements(const int64_t *dims, size_t count) {
    int64_t n = 1;
    for (size_t i = 0; i < count; i++) n *= dims[i];
    return n;
}

static void count_failure(void) { __atomic_fetch_add(&failed_runs, 1, __ATOMIC_RELAXED); }

static void compute(void *kernel, void *context) {
    const float epsilon = ((Kernel *)kernel)->epsilon;
    const void *in[N_INPUTS];
    int64_t dims[N_INPUTS][MAX_DIMS];
    size_t ndims[N_INPUTS];
    void *data[N_INPUTS];
    int ok = 1;
    for (size_t i = 0; i < N_INPUTS && ok; i++) {
        ok = CALL(API_KERNEL_CONTEXT_GET_INPUT, status_fn_input, context, i, &in[i]) == NULL && in[i] &&
             dims_of(in[i], dims[i], &ndims[i]) &&
             CALL(API_GET_TENSOR_MUTABLE_DATA, status_fn_ptr_ptr, in[i], &data[i]) == NULL;
    }
    void *out = NULL;
    uint8_t *y = NULL;
    if (!ok || CALL(API_KERNEL_CONTEXT_GET_OUTPUT, status_fn_output, context, 0, dims[0], ndims[0], &out) != NULL ||
        !out || CALL(API_GET_TENSOR_MUTABLE_DATA, status_fn_ptr_ptr, out, (void **)&y) != NULL || !y) {
        count_failure(); /* onnxruntime itself failed us: nothing more can be done */
        return;
    }
    const int64_t batch = ndims[0] == 3 ? dims[0][0] : 0, channels = ndims[0] == 3 ? dims[0][1] : 0;
    const int64_t steps = ndims[0] == 3 ? dims[0][2] : 0;
    ok = ndims[0] == 3 && elements(dims[5], ndims[5]) == 1 && elements(dims[6], ndims[6]) == 1;
    for (int i = 1; i <= 4; i++) ok = ok && elements(dims[i], ndims[i]) == channels;
    const uint8_t zero_point = elements(dims[6], ndims[6]) >= 1 ? *(const uint8_t *)data[6] : 0;
    if (!ok) {
        /* Inputs that do not fit (the graph rewrite never makes such a node). A version 8
         * kernel cannot fail a run, and a missing output would reach the next node: the
         * output is the zero point (silence), and the failure is counted. */
        count_failure();
        memset(y, zero_point, (size_t)elements(dims[0], ndims[0]));
        return;
    }
    const float *x = data[0], *scale = data[1], *bias = data[2], *alpha = data[3], *inverse = data[4];
    const float y_scale = *(const float *)data[5];
    for (int64_t b = 0; b < batch; b++) {
        for (int64_t c = 0; c < channels; c++) {
            const size_t row = (size_t)((b * channels + c) * steps);
            norm_snake_row(x + row, (size_t)steps, scale[c], bias[c], alpha[c], inverse[c], epsilon, y_scale,
                           (float)zero_point, y + row);
        }
    }
}

/* --- the OrtCustomOp (version 8) --------------------------------------------------- */

typedef struct {
    uint32_t version;
    void *(*CreateKernel)(const void *op, const void *api, const void *info);
    const char *(*GetName)(const void *op);
    const char *(*GetExecutionProviderType)(const void *op);
    int (*GetInputType)(const void *op, size_t index);
    size_t (*GetInputTypeCount)(const void *op);
    int (*GetOutputType)(const void *op, size_t index);
    size_t (*GetOutputTypeCount)(const void *op);
    void (*KernelCompute)(void *kernel, void *context);
    void (*KernelDestroy)(void *kernel);
    int (*GetInputCharacteristic)(const void *op, size_t index);  /* version 8 */
    int (*GetOutputCharacteristic)(const void *op, size_t index); /* version 8 */
} CustomOp;

static void *create_kernel(const void *op, const void *ort_api, const void *info) {
    (void)op;
    (void)ort_api;
    Kernel *k = malloc(sizeof *k);
    if (!k) return NULL;
    k->epsilon = 1e-5f;
    OrtStatus *status = CALL(API_KERNEL_INFO_GET_ATTRIBUTE_FLOAT, status_fn_attr_float, info, "epsilon", &k->epsilon);
    if (status) CALL(API_RELEASE_STATUS, release_fn, status);
    return k;
}

static const char *op_name(const void *op) { (void)op; return "NormSnakeQuantize"; }
static const char *op_provider(const void *op) { (void)op; return "CPUExecutionProvider"; }
static int input_type(const void *op, size_t index) { (void)op; return index == 6 ? TYPE_UINT8 : TYPE_FLOAT; }
static size_t input_count(const void *op) { (void)op; return N_INPUTS; }
static int output_type(const void *op, size_t index) { (void)op; (void)index; return TYPE_UINT8; }
static size_t output_count(const void *op) { (void)op; return 1; }
static void destroy_kernel(void *kernel) { free(kernel); }
static int required(const void *op, size_t index) { (void)op; (void)index; return 0; /* INPUT_OUTPUT_REQUIRED */ }

static const CustomOp norm_snake_op = {
    8, create_kernel, op_name, op_provider, input_type, input_count, output_type, output_count, compute, destroy_kernel,
    required, required,
};

#define DOMAIN "tray_reader"

/* Called by onnxruntime (SessionOptions.register_custom_ops_library). */
OrtStatus *RegisterCustomOps(void *options, const OrtApiBase *base) {
    api = (void *const *)base->GetApi(1);
    if (!api) return NULL; /* cannot even make a status: onnxruntime then lacks the op */
    void *domain = NULL; /* kept for the life of the process, as sessions may use it */
    OrtStatus *status = CALL(API_CREATE_CUSTOM_OP_DOMAIN, status_fn_str_ptr, DOMAIN, &domain);
    if (!status) status = CALL(API_CUSTOM_OP_DOMAIN_ADD, status_fn_ptr_cptr, domain, &norm_snake_op);
    if (!status) status = CALL(API_ADD_CUSTOM_OP_DOMAIN, status_fn_ptr_cptr, options, domain);
    return status;
}
