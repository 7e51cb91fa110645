/* ---- status registers (RED-SEA thesis §3.4, §3.6.2, Fig. 3.2) ----
 * Two bits per write channel: IDLE -> BUSY when the transfer is enqueued, BUSY -> DONE on its
 * completion or BUSY -> ERROR, DONE/ERROR -> IDLE when the owner reads it. A read names one
 * channel, or 32 channels (half a 64-channel page: 32 x 2 bits in one 64-bit load), and
 * clears every DONE/ERROR channel it returns. Reads come with the reader's protection domain:
 * another domain's page is refused (RNIC_EPERM, counted), as the AXI slave answers an error. */

typedef enum rq_status { RQ_IDLE = 0, RQ_BUSY = 1, RQ_DONE = 2, RQ_ERROR = 3 } rq_status;

typedef struct rq_status_stats {
    uint64_t reads_one, reads_32, cleared;
    rnic_err_stats errors; /* EPERM cross-domain, ENOENT unknown channel, ESTATE bad transition */
} rq_status_stats;

typedef struct rq_status_regs {
    uint32_t domains, channels; /* write channels per domain, a multiple of 32 */
    uint64_t *words;            /* 32 channels per word, 2 bits each */
    rq_status_stats stats;
} rq_status_regs;

/* Bytes for domains x channels; 0 when a count is 0, channels is not a multiple of 32, or
 * domains x channels > 2^24. */
RQ_API size_t rq_status_mem_size(uint32_t domains, uint32_t channels);
RQ_API rnic_err rq_status_init(rq_status_regs *s, uint32_t domains, uint32_t channels, void *mem, size_t size);
/* The engine's transitions: IDLE -> BUSY, BUSY -> DONE or ERROR; anything else is
 * RNIC_ESTATE (counted, nothing changes); RNIC_ENOENT unknown domain or channel. */
RQ_API rnic_err rq_status_set(rq_status_regs *s, uint32_t domain, uint32_t channel, rq_status to);
RQ_API rq_status rq_status_peek(const rq_status_regs *s, uint32_t domain, uint32_t channel);
/* Processor reads (read-and-clear of DONE/ERROR). reader: the requester's domain; domain: the
 * page addressed. read32: channels half x 32 .. half x 32 + 31, channel j in bits 2j..2j+1. */
RQ_API rnic_err rq_status_read_one(rq_status_regs *s, uint32_t reader, uint32_t domain, uint32_t channel, rq_status *out);
RQ_API rnic_err rq_status_read32(rq_status_regs *s, uint32_t reader, uint32_t domain, uint32_t half, uint64_t *out);
