/* roce_pcap.h -- RoCEv2 frames as a NIC puts them on the wire, written to a pcap file.
 * A hosted helper of the composed RNIC model (it uses <stdio.h>); not an engine.
 *
 * Frame (all multi-byte fields big-endian except the ICRC):
 *   Ethernet II  14 B  dst MAC, src MAC, ethertype 0x0800
 *   IPv4         20 B  0x45, TOS = DSCP << 2 | ECN, total length, id, DF, TTL 64, proto 17, checksum
 *   UDP           8 B  source port (from a flow hash, or given), dport 4791, length, checksum 0
 *   BTH          12 B  opcode; SE M PadCnt(2) TVer(4); P_Key; F B resv6; DestQP(24); A resv7; PSN(24)
 *   RETH         16 B  VA(64), R_Key(32), DMA length(32)       on RDMA WRITE First and Only
 *   AETH          4 B  syndrome(8), MSN(24)                    on ACK / NAK (opcode 0x11)
 *   (CNP         16 B  reserved, zero                          on CNP)
 *   payload       n B  byte i = roce_payload_byte(payload_seed, payload_offset + i)
 *   pad    0..3 B zero  to a multiple of 4 (BTH PadCnt)
 *   ICRC          4 B  CRC-32 (Ethernet/zlib polynomial), stored least significant byte first
 *
 * ICRC as Linux soft-RoCE (rxe_icrc.c) and the RoCEv2 annex compute it: CRC-32 over
 *   8 bytes of 0xff (the masked LRH of InfiniBand), then the IPv4 header with TOS (DSCP+ECN),
 *   TTL and header checksum set to all ones, the UDP header with its checksum set to all ones,
 *   the BTH with its byte 4 (FECN, BECN, resv6) set to all ones, then everything after the BTH
 *   up to the ICRC (extension headers, payload, pad). The fields a switch may rewrite are
 *   masked, so the ICRC survives ECN marking and routing. A ConnectX-4 Lx capture is one of
 *   the tests' known-good frames (tests/test_roce_pcap.c).
 *
 * API (every function static inline; include from one or many files):
 *   roce_frame_spec s; memset(&s, 0, sizeof s);   zero means: P_Key 0xffff, TVer 0, id 0, ...
 *   s.opcode = ROCE_OP_WRITE_ONLY; s.dest_qp = ...; s.psn = ...; s.payload_len = ...;
 *   size_t roce_build_frame(const roce_frame_spec *s, uint8_t *buf, size_t cap)
 *       the frame's full length (0: invalid spec), writing its first min(cap, length) bytes;
 *       the ICRC is always that of the full frame (a short buf truncates, as a snaplen does)
 *   size_t roce_frame_len(const roce_frame_spec *s)      the same length, nothing written
 *   uint32_t roce_icrc(const uint8_t *frame, size_t len) ICRC of a whole Ethernet/IPv4/UDP frame
 *       in a buffer (its last 4 bytes are the ICRC slot and are not covered); 0 if not IPv4/UDP
 *   int roce_pcap_open(roce_pcap *p, const char *path, uint32_t snaplen)   nanosecond stamps
 *   int roce_pcap_open_ts(roce_pcap *p, const char *path, uint32_t snaplen, int resolution)
 *       resolution ROCE_PCAP_NSEC or ROCE_PCAP_USEC; snaplen 0 means 65535. 0 ok, -1 error
 *   int roce_pcap_write(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *s)
 *       one record: the first min(snaplen, length) bytes, orig_len = length. 0 ok, -1 error
 *       (invalid spec: p->bad_specs counts it; I/O: p->io_error set)
 *   void roce_pcap_close(roce_pcap *p)
 *
 * Shortcuts for the frames a transport sends. Each copies a template spec `t` (MACs, IPs,
 * DSCP, ECN, IP id, UDP source port or flow hash, P_Key, TVer, MigReq), sets the opcode and
 * the fields named in its arguments, clears the rest (SE, AckReq, FECN, BECN, RETH, AETH,
 * payload) and returns 0, or -1 for an argument out of range (s is then left unspecified):
 *   int roce_spec_data(roce_frame_spec *s, const roce_frame_spec *t, uint8_t opcode,
 *                      uint32_t dest_qp, uint32_t psn, uint32_t payload_len, uint8_t ecn)
 *       a SEND / WRITE packet, the IPv4 ECN field set to ecn (ROCE_ECN_CE = 3: what a switch
 *       writes into a packet it marks); the payload seed, offset, RETH and AckReq stay the
 *       template's, so set them there (or in s afterwards)
 *   int roce_spec_ack(roce_frame_spec *s, const roce_frame_spec *t, uint32_t dest_qp,
 *                     uint32_t psn, uint32_t msn, uint8_t credit)
 *       RC Acknowledge (0x11), AETH syndrome 0b0_00_ccccc: ACK with credit count credit
 *       (0..30, or ROCE_AETH_CREDIT_INVALID 31: no end-to-end credit); psn: the PSN it acks
 *   int roce_spec_nak(roce_frame_spec *s, const roce_frame_spec *t, uint32_t dest_qp,
 *                     uint32_t psn, uint32_t msn, uint8_t code)
 *       RC Acknowledge, AETH syndrome 0b0_11_ccccc: NAK with code (ROCE_NAK_PSN_SEQ_ERR 0 ..
 *       ROCE_NAK_INVALID_RD_REQ 4); for a PSN sequence error psn is the PSN expected next
 *       (IBA 9.7.5.2.1, as Linux rxe sends it), so syndrome 0x60
 *   int roce_spec_cnp(roce_frame_spec *s, const roce_frame_spec *t, uint32_t dest_qp)
 *       RoCEv2 CNP (opcode 0x81, RoCEv2 annex A17.9.3): BECN 1, PSN 0, 16 reserved zero
 *       bytes after the BTH; dest_qp is the QP of the flow whose packets arrived CE-marked
 *       (the sender's QP). DSCP and ECN are the template's (the annex leaves them to the
 *       NIC's configuration: a ConnectX-4 Lx sent DSCP 48, ECT(0), tests/test_roce_pcap.c)
 *   int roce_pcap_data(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *t, opcode,
 *                      dest_qp, psn, payload_len, ecn)
 *   int roce_pcap_ack(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *t, dest_qp, psn, msn, credit)
 *   int roce_pcap_nak(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *t, dest_qp, psn, msn, code)
 *   int roce_pcap_cnp(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *t, dest_qp)
 *       the same spec, written as one record (roce_pcap_write); an argument out of range
 *       counts in p->bad_specs like an invalid spec. 0 ok, -1 error
 * Check a file with tools/pcap_check.sh FILE (tshark). */
#ifndef ROCE_PCAP_H
#define ROCE_PCAP_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* BTH opcodes: RC (transport bits 000) and the RoCEv2 congestion notification packet. */
#define ROCE_OP_SEND_FIRST 0x00u
#define ROCE_OP_SEND_MIDDLE 0x01u
#define ROCE_OP_SEND_LAST 0x02u
#define ROCE_OP_SEND_ONLY 0x04u
#define ROCE_OP_WRITE_FIRST 0x06u
#define ROCE_OP_WRITE_MIDDLE 0x07u
#define ROCE_OP_WRITE_LAST 0x08u
#define ROCE_OP_WRITE_ONLY 0x0Au
#define ROCE_OP_ACK 0x11u
#define ROCE_OP_CNP 0x81u

/* The two ECN bits of the IPv4 TOS byte (RFC 3168). */
#define ROCE_ECN_NOT_ECT 0u
#define ROCE_ECN_ECT1 1u
#define ROCE_ECN_ECT0 2u
#define ROCE_ECN_CE 3u

/* AETH syndrome (IBA 9.7.5.1): bit 7 reserved 0, bits 6..5 the kind, bits 4..0 its value. */
#define ROCE_AETH_ACK 0x00u           /* | credit count (0..30, 31 = invalid: no credit) */
#define ROCE_AETH_RNR_NAK 0x20u       /* | RNR timer */
#define ROCE_AETH_NAK 0x60u           /* | NAK code */
#define ROCE_AETH_KIND_MASK 0x60u
#define ROCE_AETH_CREDIT_INVALID 0x1fu
#define ROCE_NAK_PSN_SEQ_ERR 0u       /* PSN sequence error: syndrome 0x60 */
#define ROCE_NAK_INVALID_REQ 1u
#define ROCE_NAK_REMOTE_ACCESS 2u
#define ROCE_NAK_REMOTE_OP 3u
#define ROCE_NAK_INVALID_RD_REQ 4u

#define ROCE_UDP_PORT 4791u
#define ROCE_DEFAULT_PKEY 0xffffu

/* Byte offsets in the frame. */
#define ROCE_OFF_IP 14u
#define ROCE_OFF_UDP 34u
#define ROCE_OFF_BTH 42u
#define ROCE_OFF_EXT 54u /* RETH, AETH or the CNP's reserved bytes; else the payload */
#define ROCE_ICRC_BYTES 4u
/* Largest payload: IPv4 total length is 16 bits (65535 - 20 - 8 - 12 - 16 - 4 - 3 pad). */
#define ROCE_MAX_PAYLOAD 65472u

typedef struct roce_frame_spec {
    uint8_t opcode;           /* ROCE_OP_* */
    uint8_t dst_mac[6], src_mac[6];
    uint32_t src_ip, dst_ip;  /* host order: 0x0a000001 is 10.0.0.1 */
    uint8_t dscp;             /* 0..63 */
    uint8_t ecn;              /* ROCE_ECN_*, 0..3 */
    uint16_t ip_id;           /* IPv4 identification */
    uint16_t udp_sport;       /* nonzero: the UDP source port as is */
    uint64_t flow_hash;       /* udp_sport 0: source port 0xC000 | 14 bits folded from this */
    /* BTH */
    uint8_t solicited, migreq, ack_req, fecn, becn; /* flags, 0 or 1 (CNP: becn forced to 1) */
    uint8_t tver;             /* transport header version, 0..15 (0 today) */
    uint16_t pkey;            /* 0 means ROCE_DEFAULT_PKEY (0xffff) */
    uint32_t dest_qp;         /* 24 bits */
    uint32_t psn;             /* 24 bits */
    /* RETH (RDMA WRITE First / Only) */
    uint64_t reth_va;
    uint32_t reth_rkey;
    uint32_t reth_len;        /* DMA length of the whole message */
    /* AETH (ACK) */
    uint8_t aeth_syndrome;    /* ROCE_AETH_ACK | credit, ROCE_AETH_NAK | code, ...: IBA 9.7.5.1 */
    uint32_t aeth_msn;        /* 24 bits */
    /* payload: 0 for ACK and CNP; pad and ICRC are added */
    uint32_t payload_len;
    uint64_t payload_seed;    /* deterministic content, e.g. a message id */
    uint64_t payload_offset;  /* offset of this packet's first byte in the message */
} roce_frame_spec;

typedef struct roce_pcap {
    FILE *f;
    uint32_t snaplen;
    int nsec;                 /* 1: nanosecond timestamps, 0: microsecond */
    uint64_t frames, bytes_written, bytes_on_wire;
    uint64_t bad_specs;       /* roce_pcap_write calls refused for an invalid spec */
    int io_error;
} roce_pcap;

#define ROCE_PCAP_USEC 0
#define ROCE_PCAP_NSEC 1

/* Payload content: a function of (seed, offset) only, so a receiver can check any byte. */
static inline uint8_t roce_payload_byte(uint64_t seed, uint64_t offset)
{
    uint64_t x = (seed ^ (offset >> 8) * 0x9E3779B97F4A7C15ull) * 0xD6E8FEB86659FD93ull;
    return (uint8_t)((x >> 56) + (uint8_t)offset);
}

/* ---- CRC-32, reflected polynomial 0xEDB88320 (Ethernet, zlib), a byte at a time ---- */
static const uint32_t roce__crc_table[256] = {
        0x00000000u, 0x77073096u, 0xEE0E612Cu, 0x990951BAu, 0x076DC419u, 0x706AF48Fu,
        0xE963A535u, 0x9E6495A3u, 0x0EDB8832u, 0x79DCB8A4u, 0xE0D5E91Eu, 0x97D2D988u,
        0x09B64C2Bu, 0x7EB17CBDu, 0xE7B82D07u, 0x90BF1D91u, 0x1DB71064u, 0x6AB020F2u,
        0xF3B97148u, 0x84BE41DEu, 0x1ADAD47Du, 0x6DDDE4EBu, 0xF4D4B551u, 0x83D385C7u,
        0x136C9856u, 0x646BA8C0u, 0xFD62F97Au, 0x8A65C9ECu, 0x14015C4Fu, 0x63066CD9u,
        0xFA0F3D63u, 0x8D080DF5u, 0x3B6E20C8u, 0x4C69105Eu, 0xD56041E4u, 0xA2677172u,
        0x3C03E4D1u, 0x4B04D447u, 0xD20D85FDu, 0xA50AB56Bu, 0x35B5A8FAu, 0x42B2986Cu,
        0xDBBBC9D6u, 0xACBCF940u, 0x32D86CE3u, 0x45DF5C75u, 0xDCD60DCFu, 0xABD13D59u,
        0x26D930ACu, 0x51DE003Au, 0xC8D75180u, 0xBFD06116u, 0x21B4F4B5u, 0x56B3C423u,
        0xCFBA9599u, 0xB8BDA50Fu, 0x2802B89Eu, 0x5F058808u, 0xC60CD9B2u, 0xB10BE924u,
        0x2F6F7C87u, 0x58684C11u, 0xC1611DABu, 0xB6662D3Du, 0x76DC4190u, 0x01DB7106u,
        0x98D220BCu, 0xEFD5102Au, 0x71B18589u, 0x06B6B51Fu, 0x9FBFE4A5u, 0xE8B8D433u,
        0x7807C9A2u, 0x0F00F934u, 0x9609A88Eu, 0xE10E9818u, 0x7F6A0DBBu, 0x086D3D2Du,
        0x91646C97u, 0xE6635C01u, 0x6B6B51F4u, 0x1C6C6162u, 0x856530D8u, 0xF262004Eu,
        0x6C0695EDu, 0x1B01A57Bu, 0x8208F4C1u, 0xF50FC457u, 0x65B0D9C6u, 0x12B7E950u,
        0x8BBEB8EAu, 0xFCB9887Cu, 0x62DD1DDFu, 0x15DA2D49u, 0x8CD37CF3u, 0xFBD44C65u,
        0x4DB26158u, 0x3AB551CEu, 0xA3BC0074u, 0xD4BB30E2u, 0x4ADFA541u, 0x3DD895D7u,
        0xA4D1C46Du, 0xD3D6F4FBu, 0x4369E96Au, 0x346ED9FCu, 0xAD678846u, 0xDA60B8D0u,
        0x44042D73u, 0x33031DE5u, 0xAA0A4C5Fu, 0xDD0D7CC9u, 0x5005713Cu, 0x270241AAu,
        0xBE0B1010u, 0xC90C2086u, 0x5768B525u, 0x206F85B3u, 0xB966D409u, 0xCE61E49Fu,
        0x5EDEF90Eu, 0x29D9C998u, 0xB0D09822u, 0xC7D7A8B4u, 0x59B33D17u, 0x2EB40D81u,
        0xB7BD5C3Bu, 0xC0BA6CADu, 0xEDB88320u, 0x9ABFB3B6u, 0x03B6E20Cu, 0x74B1D29Au,
        0xEAD54739u, 0x9DD277AFu, 0x04DB2615u, 0x73DC1683u, 0xE3630B12u, 0x94643B84u,
        0x0D6D6A3Eu, 0x7A6A5AA8u, 0xE40ECF0Bu, 0x9309FF9Du, 0x0A00AE27u, 0x7D079EB1u,
        0xF00F9344u, 0x8708A3D2u, 0x1E01F268u, 0x6906C2FEu, 0xF762575Du, 0x806567CBu,
        0x196C3671u, 0x6E6B06E7u, 0xFED41B76u, 0x89D32BE0u, 0x10DA7A5Au, 0x67DD4ACCu,
        0xF9B9DF6Fu, 0x8EBEEFF9u, 0x17B7BE43u, 0x60B08ED5u, 0xD6D6A3E8u, 0xA1D1937Eu,
        0x38D8C2C4u, 0x4FDFF252u, 0xD1BB67F1u, 0xA6BC5767u, 0x3FB506DDu, 0x48B2364Bu,
        0xD80D2BDAu, 0xAF0A1B4Cu, 0x36034AF6u, 0x41047A60u, 0xDF60EFC3u, 0xA867DF55u,
        0x316E8EEFu, 0x4669BE79u, 0xCB61B38Cu, 0xBC66831Au, 0x256FD2A0u, 0x5268E236u,
        0xCC0C7795u, 0xBB0B4703u, 0x220216B9u, 0x5505262Fu, 0xC5BA3BBEu, 0xB2BD0B28u,
        0x2BB45A92u, 0x5CB36A04u, 0xC2D7FFA7u, 0xB5D0CF31u, 0x2CD99E8Bu, 0x5BDEAE1Du,
        0x9B64C2B0u, 0xEC63F226u, 0x756AA39Cu, 0x026D930Au, 0x9C0906A9u, 0xEB0E363Fu,
        0x72076785u, 0x05005713u, 0x95BF4A82u, 0xE2B87A14u, 0x7BB12BAEu, 0x0CB61B38u,
        0x92D28E9Bu, 0xE5D5BE0Du, 0x7CDCEFB7u, 0x0BDBDF21u, 0x86D3D2D4u, 0xF1D4E242u,
        0x68DDB3F8u, 0x1FDA836Eu, 0x81BE16CDu, 0xF6B9265Bu, 0x6FB077E1u, 0x18B74777u,
        0x88085AE6u, 0xFF0F6A70u, 0x66063BCAu, 0x11010B5Cu, 0x8F659EFFu, 0xF862AE69u,
        0x616BFFD3u, 0x166CCF45u, 0xA00AE278u, 0xD70DD2EEu, 0x4E048354u, 0x3903B3C2u,
        0xA7672661u, 0xD06016F7u, 0x4969474Du, 0x3E6E77DBu, 0xAED16A4Au, 0xD9D65ADCu,
        0x40DF0B66u, 0x37D83BF0u, 0xA9BCAE53u, 0xDEBB9EC5u, 0x47B2CF7Fu, 0x30B5FFE9u,
        0xBDBDF21Cu, 0xCABAC28Au, 0x53B39330u, 0x24B4A3A6u, 0xBAD03605u, 0xCDD70693u,
        0x54DE5729u, 0x23D967BFu, 0xB3667A2Eu, 0xC4614AB8u, 0x5D681B02u, 0x2A6F2B94u,
        0xB40BBE37u, 0xC30C8EA1u, 0x5A05DF1Bu, 0x2D02EF8Du
};

static inline uint32_t roce__crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        crc = (crc >> 8) ^ roce__crc_table[(crc ^ p[i]) & 0xffu];
    return crc;
}

static inline void roce__be16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void roce__be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void roce__le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* RFC 1071 checksum of an IPv4 header (its checksum field must be zero). */
static inline uint16_t roce_ipv4_checksum(const uint8_t *hdr, size_t len)
{
    uint32_t sum = 0;
    size_t i;
    for (i = 0; i + 1 < len; i += 2)
        sum += (uint32_t)hdr[i] << 8 | hdr[i + 1];
    while (sum >> 16)
        sum = (sum & 0xffffu) + (sum >> 16);
    return (uint16_t)~sum;
}

/* Bytes after the BTH for each opcode (RETH / AETH / CNP reserved); -1: not supported. */
static inline int roce__ext_len(uint8_t opcode)
{
    switch (opcode) {
    case ROCE_OP_SEND_FIRST:
    case ROCE_OP_SEND_MIDDLE:
    case ROCE_OP_SEND_LAST:
    case ROCE_OP_SEND_ONLY:
    case ROCE_OP_WRITE_MIDDLE:
    case ROCE_OP_WRITE_LAST:
        return 0;
    case ROCE_OP_WRITE_FIRST:
    case ROCE_OP_WRITE_ONLY:
        return 16;
    case ROCE_OP_ACK:
        return 4;
    case ROCE_OP_CNP:
        return 16;
    default:
        return -1;
    }
}

static inline int roce__spec_ok(const roce_frame_spec *s)
{
    int ext = roce__ext_len(s->opcode);
    if (ext < 0 || s->dscp > 63u || s->ecn > 3u || s->tver > 15u || s->dest_qp > 0xffffffu ||
        s->psn > 0xffffffu || s->aeth_msn > 0xffffffu || s->payload_len > ROCE_MAX_PAYLOAD ||
        s->solicited > 1u || s->migreq > 1u || s->ack_req > 1u || s->fecn > 1u || s->becn > 1u)
        return 0;
    if ((s->opcode == ROCE_OP_ACK || s->opcode == ROCE_OP_CNP) && s->payload_len != 0)
        return 0;
    return 1;
}

static inline uint32_t roce__pad(const roce_frame_spec *s) { return (4u - (s->payload_len & 3u)) & 3u; }

/* The headers (Ethernet .. extension header) into hdr[70]; returns their length. */
static inline size_t roce__headers(const roce_frame_spec *s, uint8_t *hdr)
{
    size_t ext = (size_t)roce__ext_len(s->opcode), hlen = ROCE_OFF_EXT + ext;
    uint32_t pad = roce__pad(s);
    uint32_t l4 = 8u + 12u + (uint32_t)ext + s->payload_len + pad + ROCE_ICRC_BYTES;
    uint32_t sport = s->udp_sport;
    uint64_t h = s->flow_hash;
    memset(hdr, 0, hlen);
    memcpy(hdr, s->dst_mac, 6);
    memcpy(hdr + 6, s->src_mac, 6);
    roce__be16(hdr + 12, 0x0800u);
    /* IPv4 */
    hdr[14] = 0x45;
    hdr[15] = (uint8_t)(s->dscp << 2 | s->ecn);
    roce__be16(hdr + 16, 20u + l4);
    roce__be16(hdr + 18, s->ip_id);
    roce__be16(hdr + 20, 0x4000u); /* DF, as RoCE NICs send */
    hdr[22] = 64;
    hdr[23] = 17;
    roce__be32(hdr + 26, s->src_ip);
    roce__be32(hdr + 30, s->dst_ip);
    roce__be16(hdr + 24, roce_ipv4_checksum(hdr + 14, 20));
    /* UDP; checksum 0 (RoCEv2 allows it: the ICRC covers the transport) */
    if (sport == 0) { /* 49152..65535, like rxe's 0xC000 + a 14-bit hash of the flow */
        h ^= h >> 28;
        h ^= h >> 14;
        sport = 0xC000u | (uint32_t)(h & 0x3fffu);
    }
    roce__be16(hdr + 34, sport);
    roce__be16(hdr + 36, ROCE_UDP_PORT);
    roce__be16(hdr + 38, l4);
    /* BTH */
    hdr[42] = s->opcode;
    hdr[43] = (uint8_t)(s->solicited << 7 | s->migreq << 6 | pad << 4 | s->tver);
    roce__be16(hdr + 44, s->pkey ? s->pkey : ROCE_DEFAULT_PKEY);
    hdr[46] = (uint8_t)(s->fecn << 7 | (s->becn || s->opcode == ROCE_OP_CNP) << 6);
    hdr[47] = (uint8_t)(s->dest_qp >> 16);
    hdr[48] = (uint8_t)(s->dest_qp >> 8);
    hdr[49] = (uint8_t)s->dest_qp;
    roce__be32(hdr + 50, (uint32_t)s->ack_req << 31 | s->psn);
    if (s->opcode == ROCE_OP_WRITE_FIRST || s->opcode == ROCE_OP_WRITE_ONLY) {
        roce__be32(hdr + 54, (uint32_t)(s->reth_va >> 32));
        roce__be32(hdr + 58, (uint32_t)s->reth_va);
        roce__be32(hdr + 62, s->reth_rkey);
        roce__be32(hdr + 66, s->reth_len);
    } else if (s->opcode == ROCE_OP_ACK) {
        roce__be32(hdr + 54, (uint32_t)s->aeth_syndrome << 24 | s->aeth_msn);
    } /* CNP: 16 reserved zero bytes */
    return hlen;
}

static inline size_t roce_frame_len(const roce_frame_spec *s)
{
    if (!s || !roce__spec_ok(s))
        return 0;
    return ROCE_OFF_EXT + (size_t)roce__ext_len(s->opcode) + s->payload_len + roce__pad(s) + ROCE_ICRC_BYTES;
}

/* CRC over the masked pseudo header: 8 x 0xff, IPv4 (TOS, TTL, checksum = ones), UDP
 * (checksum = ones), BTH (byte 4 = ones). Returns the running (not yet inverted) CRC. */
static inline uint32_t roce__icrc_headers(const uint8_t *ip_udp_bth)
{
    static const uint8_t lrh_ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t m[40];
    memcpy(m, ip_udp_bth, sizeof m);
    m[1] = 0xff;                /* TOS: DSCP and ECN */
    m[8] = 0xff;                /* TTL */
    m[10] = m[11] = 0xff;       /* IPv4 header checksum */
    m[20 + 6] = m[20 + 7] = 0xff; /* UDP checksum */
    m[28 + 4] = 0xff;           /* BTH F, B, resv6 */
    return roce__crc32_update(roce__crc32_update(0xffffffffu, lrh_ones, 8), m, sizeof m);
}

/* ICRC of the frame a valid spec describes, streamed (no frame buffer). */
static inline uint32_t roce__spec_icrc(const roce_frame_spec *s, const uint8_t *hdr, size_t hlen)
{
    static const uint8_t zeros[4] = { 0, 0, 0, 0 };
    uint8_t chunk[256];
    uint32_t crc = roce__icrc_headers(hdr + ROCE_OFF_IP);
    uint64_t done = 0;
    crc = roce__crc32_update(crc, hdr + ROCE_OFF_EXT, hlen - ROCE_OFF_EXT);
    while (done < s->payload_len) { /* a run of bytes that share offset >> 8 at a time */
        uint64_t at = s->payload_offset + done;
        size_t n = 256u - (size_t)(at & 255u), i;
        uint8_t base = (uint8_t)(roce_payload_byte(s->payload_seed, at) - (uint8_t)at);
        if (n > s->payload_len - done)
            n = (size_t)(s->payload_len - done);
        for (i = 0; i < n; i++)
            chunk[i] = (uint8_t)(base + (uint8_t)(at + i));
        crc = roce__crc32_update(crc, chunk, n);
        done += n;
    }
    crc = roce__crc32_update(crc, zeros, roce__pad(s));
    return ~crc;
}

/* Bytes [off, off + n) of the frame into out. */
static inline void roce__emit(const roce_frame_spec *s, const uint8_t *hdr, size_t hlen, uint32_t icrc,
                              uint8_t *out, size_t off, size_t n)
{
    size_t pay_end = hlen + s->payload_len, pad_end = pay_end + roce__pad(s), i;
    uint8_t tail[4];
    roce__le32(tail, icrc);
    for (i = 0; i < n; i++) {
        size_t at = off + i;
        if (at < hlen)
            out[i] = hdr[at];
        else if (at < pay_end)
            out[i] = roce_payload_byte(s->payload_seed, s->payload_offset + (at - hlen));
        else if (at < pad_end)
            out[i] = 0;
        else
            out[i] = tail[at - pad_end];
    }
}

static inline size_t roce_build_frame(const roce_frame_spec *s, uint8_t *buf, size_t cap)
{
    uint8_t hdr[ROCE_OFF_EXT + 16];
    size_t len = roce_frame_len(s), hlen;
    if (len == 0)
        return 0;
    if (buf && cap > 0) {
        hlen = roce__headers(s, hdr);
        roce__emit(s, hdr, hlen, roce__spec_icrc(s, hdr, hlen), buf, 0, cap < len ? cap : len);
    }
    return len;
}

static inline uint32_t roce_icrc(const uint8_t *frame, size_t len)
{
    size_t ihl, start;
    uint32_t crc;
    uint8_t ip_udp_bth[40];
    if (!frame || len < ROCE_OFF_IP + 20u + 8u + 12u + ROCE_ICRC_BYTES || frame[12] != 0x08 || frame[13] != 0x00 ||
        (frame[14] >> 4) != 4u || frame[23] != 17u)
        return 0;
    ihl = (size_t)(frame[14] & 15u) * 4u;
    if (ihl != 20u) /* options would sit in the pseudo header too; RoCE NICs send none */
        return 0;
    memcpy(ip_udp_bth, frame + ROCE_OFF_IP, sizeof ip_udp_bth);
    crc = roce__icrc_headers(ip_udp_bth);
    start = ROCE_OFF_EXT;
    crc = roce__crc32_update(crc, frame + start, len - ROCE_ICRC_BYTES - start);
    return ~crc;
}

/* ---- pcap (LINKTYPE_ETHERNET, little-endian file) ---- */
static inline int roce__put32(FILE *f, uint32_t v)
{
    uint8_t b[4];
    roce__le32(b, v);
    return fwrite(b, 1, 4, f) == 4 ? 0 : -1;
}

static inline int roce_pcap_open_ts(roce_pcap *p, const char *path, uint32_t snaplen, int resolution)
{
    int rc = 0;
    if (!p || !path || (resolution != ROCE_PCAP_NSEC && resolution != ROCE_PCAP_USEC))
        return -1;
    memset(p, 0, sizeof *p);
    p->snaplen = snaplen ? snaplen : 65535u;
    p->nsec = resolution == ROCE_PCAP_NSEC;
    p->f = fopen(path, "wb");
    if (!p->f)
        return -1;
    rc |= roce__put32(p->f, p->nsec ? 0xa1b23c4du : 0xa1b2c3d4u);
    rc |= roce__put32(p->f, 2u | 4u << 16); /* version 2.4 */
    rc |= roce__put32(p->f, 0);             /* thiszone */
    rc |= roce__put32(p->f, 0);             /* sigfigs */
    rc |= roce__put32(p->f, p->snaplen);
    rc |= roce__put32(p->f, 1);             /* LINKTYPE_ETHERNET */
    if (rc) {
        fclose(p->f);
        p->f = NULL;
        return -1;
    }
    return 0;
}

static inline int roce_pcap_open(roce_pcap *p, const char *path, uint32_t snaplen)
{
    return roce_pcap_open_ts(p, path, snaplen, ROCE_PCAP_NSEC);
}

static inline int roce_pcap_write(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *s)
{
    uint8_t hdr[ROCE_OFF_EXT + 16], chunk[512];
    size_t len, incl, hlen, off;
    uint32_t icrc;
    int rc = 0;
    if (!p || !p->f || p->io_error)
        return -1;
    len = roce_frame_len(s);
    if (len == 0) {
        p->bad_specs++;
        return -1;
    }
    incl = len < p->snaplen ? len : p->snaplen;
    hlen = roce__headers(s, hdr);
    icrc = roce__spec_icrc(s, hdr, hlen);
    rc |= roce__put32(p->f, (uint32_t)(time_ns / 1000000000u));
    rc |= roce__put32(p->f, (uint32_t)(p->nsec ? time_ns % 1000000000u : time_ns % 1000000000u / 1000u));
    rc |= roce__put32(p->f, (uint32_t)incl);
    rc |= roce__put32(p->f, (uint32_t)len);
    for (off = 0; off < incl && rc == 0; off += sizeof chunk) {
        size_t n = incl - off < sizeof chunk ? incl - off : sizeof chunk;
        roce__emit(s, hdr, hlen, icrc, chunk, off, n);
        if (fwrite(chunk, 1, n, p->f) != n)
            rc = -1;
    }
    if (rc) {
        p->io_error = 1;
        return -1;
    }
    p->frames++;
    p->bytes_written += incl;
    p->bytes_on_wire += len;
    return 0;
}

static inline void roce_pcap_close(roce_pcap *p)
{
    if (p && p->f) {
        if (fclose(p->f) != 0)
            p->io_error = 1;
        p->f = NULL;
    }
}

/* ---- shortcuts: data, ACK, NAK, CNP from a template spec ---- */
static inline void roce__from_template(roce_frame_spec *s, const roce_frame_spec *t, uint8_t opcode, uint32_t dest_qp)
{
    *s = *t;
    s->opcode = opcode;
    s->dest_qp = dest_qp;
    s->solicited = s->ack_req = s->fecn = s->becn = 0;
    s->reth_va = 0;
    s->reth_rkey = s->reth_len = 0;
    s->aeth_syndrome = 0;
    s->aeth_msn = 0;
    s->payload_len = 0;
    s->psn = 0;
}

static inline int roce_spec_data(roce_frame_spec *s, const roce_frame_spec *t, uint8_t opcode, uint32_t dest_qp,
                                 uint32_t psn, uint32_t payload_len, uint8_t ecn)
{
    if (!s || !t || opcode == ROCE_OP_ACK || opcode == ROCE_OP_CNP || roce__ext_len(opcode) < 0 ||
        dest_qp > 0xffffffu || psn > 0xffffffu || payload_len > ROCE_MAX_PAYLOAD || ecn > 3u)
        return -1;
    roce__from_template(s, t, opcode, dest_qp);
    s->solicited = t->solicited;
    s->ack_req = t->ack_req;
    s->reth_va = t->reth_va;
    s->reth_rkey = t->reth_rkey;
    s->reth_len = t->reth_len;
    s->psn = psn;
    s->payload_len = payload_len;
    s->ecn = ecn;
    return 0;
}

static inline int roce__spec_aeth(roce_frame_spec *s, const roce_frame_spec *t, uint32_t dest_qp, uint32_t psn,
                                  uint32_t msn, uint8_t syndrome)
{
    if (!s || !t || dest_qp > 0xffffffu || psn > 0xffffffu || msn > 0xffffffu)
        return -1;
    roce__from_template(s, t, ROCE_OP_ACK, dest_qp);
    s->psn = psn;
    s->aeth_syndrome = syndrome;
    s->aeth_msn = msn;
    return 0;
}

static inline int roce_spec_ack(roce_frame_spec *s, const roce_frame_spec *t, uint32_t dest_qp, uint32_t psn,
                                uint32_t msn, uint8_t credit)
{
    if (credit > ROCE_AETH_CREDIT_INVALID)
        return -1;
    return roce__spec_aeth(s, t, dest_qp, psn, msn, (uint8_t)(ROCE_AETH_ACK | credit));
}

static inline int roce_spec_nak(roce_frame_spec *s, const roce_frame_spec *t, uint32_t dest_qp, uint32_t psn,
                                uint32_t msn, uint8_t code)
{
    if (code > ROCE_NAK_INVALID_RD_REQ) /* 5..31 are reserved */
        return -1;
    return roce__spec_aeth(s, t, dest_qp, psn, msn, (uint8_t)(ROCE_AETH_NAK | code));
}

static inline int roce_spec_cnp(roce_frame_spec *s, const roce_frame_spec *t, uint32_t dest_qp)
{
    if (!s || !t || dest_qp > 0xffffffu)
        return -1;
    roce__from_template(s, t, ROCE_OP_CNP, dest_qp);
    s->becn = 1;
    return 0;
}

static inline int roce__pcap_spec(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *s, int built)
{
    if (!p || !p->f || p->io_error)
        return -1;
    if (built != 0) {
        p->bad_specs++;
        return -1;
    }
    return roce_pcap_write(p, time_ns, s);
}

static inline int roce_pcap_data(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *t, uint8_t opcode,
                                 uint32_t dest_qp, uint32_t psn, uint32_t payload_len, uint8_t ecn)
{
    roce_frame_spec s;
    return roce__pcap_spec(p, time_ns, &s, roce_spec_data(&s, t, opcode, dest_qp, psn, payload_len, ecn));
}

static inline int roce_pcap_ack(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *t, uint32_t dest_qp,
                                uint32_t psn, uint32_t msn, uint8_t credit)
{
    roce_frame_spec s;
    return roce__pcap_spec(p, time_ns, &s, roce_spec_ack(&s, t, dest_qp, psn, msn, credit));
}

static inline int roce_pcap_nak(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *t, uint32_t dest_qp,
                                uint32_t psn, uint32_t msn, uint8_t code)
{
    roce_frame_spec s;
    return roce__pcap_spec(p, time_ns, &s, roce_spec_nak(&s, t, dest_qp, psn, msn, code));
}

static inline int roce_pcap_cnp(roce_pcap *p, uint64_t time_ns, const roce_frame_spec *t, uint32_t dest_qp)
{
    roce_frame_spec s;
    return roce__pcap_spec(p, time_ns, &s, roce_spec_cnp(&s, t, dest_qp));
}

#endif /* ROCE_PCAP_H */
