/* ---- transfer descriptors (RED-SEA thesis §2 Fig. 2.3, §3.1, §3.6.1; layout:
 * docs/rnicq_qos_model.md -- the thesis's figure is not in its text, so the bit layout is
 * this project's) ----
 * A descriptor is one 256-bit Transfer Table line (an inline payload of at most 8 B) or two
 * consecutive lines (every regular transfer, inline payloads of 9..32 B). Word 3 of each line
 * is the control word; its bit 63 marks the descriptor's last line. */

#define RQ_DESC_LAST_LINE ((uint64_t)1 << 63)
#define RQ_DESC_INLINE ((uint64_t)1 << 62)
#define RQ_DESC_CM ((uint64_t)1 << 61)        /* congestion managed: gets flow IDs */
#define RQ_DESC_MULTIPATH ((uint64_t)1 << 60) /* four flow IDs (needs RQ_DESC_CM) */
#define RQ_DESC_NOTIFY ((uint64_t)1 << 59)    /* completion notification (control packet) */
#define RQ_DESC_PRIO_MASK 0xfu                /* intra-priority in bits 0..3 */
#define RQ_INLINE_MAX 32u

typedef enum rq_transfer_kind { RQ_KIND_INLINE = 0, RQ_KIND_REGULAR = 1 } rq_transfer_kind;

typedef struct rq_transfer { /* a decoded descriptor */
    rq_transfer_kind kind;
    uint64_t src, dst;  /* src unused for inline */
    uint64_t size;      /* bytes: 1 .. 2^32 (regular: > 32), 1 .. 32 (inline) */
    uint64_t notify_target; /* regular: control-packet header word */
    uint32_t prio;      /* intra-priority 0 .. 15 (0 first) */
    bool cm, multipath, notify;
    uint8_t payload[RQ_INLINE_MAX];
} rq_transfer;

/* Lines a descriptor with this first control word occupies: 1 or 2. */
RQ_API uint32_t rq_desc_lines(uint64_t control0);
/* Decode lines (4 words each; line 1 only read when the descriptor has two). RNIC_EINVAL for
 * a descriptor the engine refuses: size 0 or above 2^32, an inline payload over 32 B or a
 * regular transfer of 32 B or less, multipath without congestion management, a priority or
 * reserved bit set wrongly, or last-line bits that do not match the descriptor's length. */
RQ_API rnic_err rq_desc_decode(const uint64_t line0[4], const uint64_t line1[4], rq_transfer *out);
/* The inverse (for hosts and tests): fills one or two lines; RNIC_EINVAL as above. */
RQ_API rnic_err rq_desc_encode(const rq_transfer *t, uint64_t line0[4], uint64_t line1[4]);
