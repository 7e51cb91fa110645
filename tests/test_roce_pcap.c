/* examples/rnic_model/roce_pcap.h: RoCEv2 frames and their pcap file.
 * The ICRC is checked against (1) a frame captured from a ConnectX-4 Lx NIC (a CNP, as
 * published with scapy's RoCE tests), (2) a frame built independently in Python (fields
 * packed by hand, ICRC by zlib.crc32), and (3) a bit-by-bit CRC-32 of a masked pseudo packet
 * that this file builds itself, over random frames of every opcode. Also: the IPv4 header
 * checksum, every field at its offset, the ICRC's immunity to what switches rewrite (ECN,
 * DSCP, TTL, FECN/BECN), truncation, invalid specs, and the pcap file byte for byte.
 *
 * The ACK / NAK / CNP / CE-marked data shortcuts: frames against ones assembled by hand, field
 * by field, and (when tshark is installed) as tshark decodes them.
 *
 * `test_roce_pcap --write FILE` writes a small pcap with every opcode kind and a CE mark, CNP,
 * NAK, ACK exchange (make test feeds it to tools/pcap_check.sh, which runs tshark). */
#define _POSIX_C_SOURCE 200809L
#include "../examples/rnic_model/roce_pcap.h"
#include "test.h"
#include <unistd.h>

/* ---------------------------------------------------------------- independent references */

/* CRC-32 (IEEE 802.3, reflected 0xEDB88320), one bit at a time; zlib's crc32(). */
static uint32_t ref_crc32(const uint8_t *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    size_t i;
    int b;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (b = 0; b < 8; b++)
            crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return ~crc;
}

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t rd24(const uint8_t *p) { return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]; }
static uint32_t rd32(const uint8_t *p) { return rd16(p) << 16 | rd16(p + 2); }
static uint32_t rdle32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* The RoCEv2 ICRC, spelled out: a pseudo packet of 8 x 0xff (masked LRH), then the IPv4
 * header with TOS, TTL and checksum replaced by ones, the UDP header with its checksum
 * replaced by ones, the BTH with FECN/BECN/resv6 (byte 4) replaced by ones, the rest up to
 * the ICRC as is; CRC-32 of that. */
static uint32_t ref_icrc(const uint8_t *frame, size_t len)
{
    static uint8_t pseudo[8 + 70000];
    size_t n = 0, i, ip = 14, ihl = (size_t)(frame[14] & 15u) * 4u, udp = ip + ihl, bth = udp + 8;
    for (i = 0; i < 8; i++)
        pseudo[n++] = 0xff;
    for (i = ip; i < len - 4; i++) {
        uint8_t b = frame[i];
        if (i == ip + 1 || i == ip + 8 || i == ip + 10 || i == ip + 11) /* TOS, TTL, checksum */
            b = 0xff;
        if (i == udp + 6 || i == udp + 7) /* UDP checksum */
            b = 0xff;
        if (i == bth + 4) /* FECN, BECN, resv6 */
            b = 0xff;
        pseudo[n++] = b;
    }
    return ref_crc32(pseudo, n);
}

/* RFC 1071: a correct header sums (with its checksum) to 0xffff in ones' complement. */
static uint32_t ones_sum(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    size_t i;
    for (i = 0; i < n; i += 2)
        s += rd16(p + i);
    while (s >> 16)
        s = (s & 0xffffu) + (s >> 16);
    return s;
}

static uint64_t g_rng;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const uint8_t all_ops[] = { ROCE_OP_SEND_FIRST, ROCE_OP_SEND_MIDDLE, ROCE_OP_SEND_LAST, ROCE_OP_SEND_ONLY,
                                   ROCE_OP_WRITE_FIRST, ROCE_OP_WRITE_MIDDLE, ROCE_OP_WRITE_LAST, ROCE_OP_WRITE_ONLY,
                                   ROCE_OP_ACK, ROCE_OP_CNP };
#define N_OPS (sizeof all_ops / sizeof all_ops[0])

static void random_spec(roce_frame_spec *s, uint8_t opcode, uint32_t max_payload)
{
    int i;
    memset(s, 0, sizeof *s);
    s->opcode = opcode;
    for (i = 0; i < 6; i++) {
        s->dst_mac[i] = (uint8_t)rnd();
        s->src_mac[i] = (uint8_t)rnd();
    }
    s->src_ip = (uint32_t)rnd();
    s->dst_ip = (uint32_t)rnd();
    s->dscp = (uint8_t)(rnd() % 64u);
    s->ecn = (uint8_t)(rnd() % 4u);
    s->ip_id = (uint16_t)rnd();
    s->udp_sport = (uint16_t)(rnd() % 2u ? rnd() : 0);
    s->flow_hash = rnd();
    s->solicited = (uint8_t)(rnd() & 1u);
    s->migreq = (uint8_t)(rnd() & 1u);
    s->ack_req = (uint8_t)(rnd() & 1u);
    s->fecn = (uint8_t)(rnd() & 1u);
    s->becn = (uint8_t)(rnd() & 1u);
    s->tver = (uint8_t)(rnd() % 16u);
    s->pkey = (uint16_t)rnd();
    s->dest_qp = (uint32_t)rnd() & 0xffffffu;
    s->psn = (uint32_t)rnd() & 0xffffffu;
    s->reth_va = rnd();
    s->reth_rkey = (uint32_t)rnd();
    s->reth_len = (uint32_t)rnd();
    s->aeth_syndrome = (uint8_t)rnd();
    s->aeth_msn = (uint32_t)rnd() & 0xffffffu;
    if (opcode != ROCE_OP_ACK && opcode != ROCE_OP_CNP)
        s->payload_len = (uint32_t)(rnd() % (max_payload + 1u));
    s->payload_seed = rnd();
    s->payload_offset = rnd() % 1000000u;
}

static uint8_t g_frame[70000], g_frame2[70000];

/* ---------------------------------------------------------------- test cases */

/* A CNP captured from a ConnectX-4 Lx (scapy's test/contrib/roce.uts): its ICRC is
 * 82 fd 00 2a on the wire, i.e. CRC value 0x2a00fd82 stored least significant byte first. */
static const uint8_t cx4_cnp[74] = {
    0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32, 0x08, 0x00, 0x45, 0xc2,
    0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00,
    0x12, 0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff, 0x40, 0x00,
    0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0xfd, 0x00, 0x2a,
};

static void test_icrc_of_a_hardware_cnp(void)
{
    roce_frame_spec s;
    size_t len, i;
    CHECK_EQ(roce_icrc(cx4_cnp, sizeof cx4_cnp), 0x2a00fd82u);
    CHECK_EQ(ref_icrc(cx4_cnp, sizeof cx4_cnp), 0x2a00fd82u);
    CHECK_EQ(ones_sum(cx4_cnp + 14, 20), 0xffffu);
    /* the same CNP from a spec: identical bytes but the UDP source port (the NIC sent 0,
     * which the builder never picks), so the ICRC is checked on the patched copy */
    memset(&s, 0, sizeof s);
    memcpy(s.dst_mac, cx4_cnp, 6);
    memcpy(s.src_mac, cx4_cnp + 6, 6);
    s.opcode = ROCE_OP_CNP;
    s.dscp = 0xc2 >> 2;
    s.ecn = 0xc2 & 3;
    s.ip_id = 0x718c;
    s.src_ip = 0x0a001101u;
    s.dst_ip = 0x0a001201u;
    s.udp_sport = 0x1234;
    s.dest_qp = 0x118;
    len = roce_build_frame(&s, g_frame, sizeof g_frame);
    CHECK_EQ(len, sizeof cx4_cnp);
    for (i = 0; i < sizeof cx4_cnp - 4; i++)
        if (i != 34 && i != 35)
            CHECK_EQ(g_frame[i], cx4_cnp[i]);
    g_frame[34] = g_frame[35] = 0;
    CHECK_EQ(roce_icrc(g_frame, len), 0x2a00fd82u);
}

/* A WRITE Only packed field by field in Python and its ICRC from zlib.crc32 (the script's
 * arithmetic is the header comment of roce_pcap.h; payload bytes from roce_payload_byte). */
static const uint8_t py_write_only[114] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0xfe, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45, 0x6a,
    0x00, 0x64, 0x01, 0x02, 0x40, 0x00, 0x40, 0x11, 0x24, 0x1c, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00,
    0x01, 0x01, 0xc1, 0x23, 0x12, 0xb7, 0x00, 0x50, 0x00, 0x00, 0x0a, 0xb0, 0xff, 0xff, 0x00, 0x00,
    0xbe, 0xef, 0x80, 0x12, 0x34, 0x56, 0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x56, 0x78, 0xab, 0xcd,
    0xef, 0x01, 0x00, 0x00, 0x10, 0x00, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76,
    0x77, 0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86,
    0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f, 0x90, 0x91, 0x00, 0x00, 0x00, 0xbd, 0x41,
    0x10, 0x8a,
};

static void test_frame_built_in_python(void)
{
    roce_frame_spec s;
    size_t len, i;
    memset(&s, 0, sizeof s);
    s.opcode = ROCE_OP_WRITE_ONLY;
    s.dst_mac[0] = 0x02;
    s.dst_mac[5] = 0xfe;
    s.src_mac[0] = 0x02;
    s.src_mac[5] = 0x01;
    s.src_ip = 0x0a000001u;
    s.dst_ip = 0x0a000101u;
    s.dscp = 26;
    s.ecn = ROCE_ECN_ECT0;
    s.ip_id = 0x0102;
    s.udp_sport = 0xc123;
    s.solicited = 1;
    s.ack_req = 1;
    s.dest_qp = 0xbeef;
    s.psn = 0x123456;
    s.reth_va = 0x00007f0012345678ull;
    s.reth_rkey = 0xabcdef01u;
    s.reth_len = 4096;
    s.payload_len = 37;
    s.payload_seed = 0x1234;
    s.payload_offset = 100;
    len = roce_build_frame(&s, g_frame, sizeof g_frame);
    CHECK_EQ(len, sizeof py_write_only);
    for (i = 0; i < sizeof py_write_only && i < len; i++)
        CHECK_EQ(g_frame[i], py_write_only[i]);
    CHECK_EQ(rdle32(py_write_only + 110), 0x8a1041bdu);
    CHECK_EQ(roce_icrc(py_write_only, sizeof py_write_only), 0x8a1041bdu);
    CHECK_EQ(ref_icrc(py_write_only, sizeof py_write_only), 0x8a1041bdu);
}

/* Random frames of every opcode: the builder's ICRC (last 4 bytes, LE) and roce_icrc equal
 * the bit-by-bit CRC of the pseudo packet built here. */
static void test_icrc_matches_independent_crc(void)
{
    roce_frame_spec s;
    size_t k, len;
    int i;
    for (i = 0; i < 400 && TEST_FAILS() == 0; i++)
        for (k = 0; k < N_OPS; k++) {
            random_spec(&s, all_ops[k], i < 390 ? 300u : ROCE_MAX_PAYLOAD);
            len = roce_build_frame(&s, g_frame, sizeof g_frame);
            CHECK(len > 0);
            CHECK_EQ(rdle32(g_frame + len - 4), ref_icrc(g_frame, len));
            CHECK_EQ(roce_icrc(g_frame, len), ref_icrc(g_frame, len));
        }
}

/* Every field at its offset, for every opcode. */
static void test_fields_at_their_offsets(void)
{
    roce_frame_spec s;
    size_t k, len, ext, i;
    int n;
    for (n = 0; n < 200 && TEST_FAILS() == 0; n++)
        for (k = 0; k < N_OPS; k++) {
            uint8_t op = all_ops[k];
            uint32_t pad, sport;
            const uint8_t *f = g_frame;
            random_spec(&s, op, 2000u);
            len = roce_build_frame(&s, g_frame, sizeof g_frame);
            ext = op == ROCE_OP_WRITE_FIRST || op == ROCE_OP_WRITE_ONLY ? 16 : op == ROCE_OP_ACK ? 4 : op == ROCE_OP_CNP ? 16 : 0;
            pad = (4u - s.payload_len % 4u) % 4u;
            CHECK_EQ(len, 14 + 20 + 8 + 12 + ext + s.payload_len + pad + 4);
            CHECK_EQ((s.payload_len + pad) % 4u, 0);
            CHECK(memcmp(f, s.dst_mac, 6) == 0 && memcmp(f + 6, s.src_mac, 6) == 0);
            CHECK_EQ(rd16(f + 12), 0x0800);
            /* IPv4 */
            CHECK_EQ(f[14], 0x45);
            CHECK_EQ(f[15] >> 2, s.dscp);
            CHECK_EQ(f[15] & 3u, s.ecn);
            CHECK_EQ(rd16(f + 16), len - 14);
            CHECK_EQ(rd16(f + 18), s.ip_id);
            CHECK_EQ(rd16(f + 20), 0x4000); /* DF, offset 0 */
            CHECK_EQ(f[22], 64);
            CHECK_EQ(f[23], 17);
            CHECK_EQ(ones_sum(f + 14, 20), 0xffffu);
            CHECK_EQ(rd32(f + 26), s.src_ip);
            CHECK_EQ(rd32(f + 30), s.dst_ip);
            /* UDP */
            sport = rd16(f + 34);
            if (s.udp_sport)
                CHECK_EQ(sport, s.udp_sport);
            else
                CHECK(sport >= 0xC000u);
            CHECK_EQ(rd16(f + 36), 4791);
            CHECK_EQ(rd16(f + 38), len - 34);
            CHECK_EQ(rd16(f + 40), 0);
            /* BTH */
            CHECK_EQ(f[42], op);
            CHECK_EQ(f[43] >> 7, s.solicited);
            CHECK_EQ((f[43] >> 6) & 1u, s.migreq);
            CHECK_EQ((f[43] >> 4) & 3u, pad);
            CHECK_EQ(f[43] & 15u, s.tver);
            CHECK_EQ(rd16(f + 44), s.pkey ? s.pkey : 0xffff);
            CHECK_EQ(f[46] >> 7, s.fecn);
            CHECK_EQ((f[46] >> 6) & 1u, op == ROCE_OP_CNP ? 1u : s.becn);
            CHECK_EQ(f[46] & 0x3fu, 0);
            CHECK_EQ(rd24(f + 47), s.dest_qp);
            CHECK_EQ(f[50] >> 7, s.ack_req);
            CHECK_EQ(f[50] & 0x7fu, 0);
            CHECK_EQ(rd24(f + 51), s.psn);
            /* extension headers */
            if (ext == 16 && op != ROCE_OP_CNP) {
                CHECK_EQ((uint64_t)rd32(f + 54) << 32 | rd32(f + 58), s.reth_va);
                CHECK_EQ(rd32(f + 62), s.reth_rkey);
                CHECK_EQ(rd32(f + 66), s.reth_len);
            }
            if (op == ROCE_OP_ACK) {
                CHECK_EQ(f[54], s.aeth_syndrome);
                CHECK_EQ(rd24(f + 55), s.aeth_msn);
            }
            if (op == ROCE_OP_CNP)
                for (i = 54; i < 70; i++)
                    CHECK_EQ(f[i], 0);
            /* payload, then zero pad */
            for (i = 0; i < s.payload_len; i++)
                if (f[54 + ext + i] != roce_payload_byte(s.payload_seed, s.payload_offset + i))
                    CHECK(0);
            for (i = 0; i < pad; i++)
                CHECK_EQ(f[54 + ext + s.payload_len + i], 0);
        }
    /* the flow hash picks the source port: same hash, same port; it spreads */
    {
        unsigned seen[4] = { 0, 0, 0, 0 };
        random_spec(&s, ROCE_OP_SEND_ONLY, 0);
        s.udp_sport = 0;
        for (n = 0; n < 4000; n++) {
            uint32_t p1, p2;
            s.flow_hash = rnd();
            roce_build_frame(&s, g_frame, 64);
            p1 = rd16(g_frame + 34);
            roce_build_frame(&s, g_frame, 64);
            p2 = rd16(g_frame + 34);
            CHECK_EQ(p1, p2);
            seen[(p1 >> 12) & 3u]++;
        }
        for (n = 0; n < 4; n++) /* about 1000 each */
            CHECK(seen[n] > 850 && seen[n] < 1150);
    }
}

/* Switches rewrite ECN (and may rewrite DSCP, TTL, FECN/BECN): the ICRC must not change.
 * PSN, QP, payload, lengths and addresses are covered: changing one changes the ICRC. */
static void test_icrc_masks_what_switches_rewrite(void)
{
    roce_frame_spec s, t;
    size_t len, len2;
    int n;
    for (n = 0; n < 300 && TEST_FAILS() == 0; n++) {
        random_spec(&s, all_ops[rnd() % N_OPS], 600u);
        len = roce_build_frame(&s, g_frame, sizeof g_frame);
        t = s;
        t.ecn = (uint8_t)((s.ecn + 1u + rnd() % 3u) % 4u);
        t.dscp = (uint8_t)((s.dscp + 1u) % 64u);
        t.fecn ^= 1;
        t.becn ^= 1;
        len2 = roce_build_frame(&t, g_frame2, sizeof g_frame2);
        CHECK_EQ(len2, len);
        CHECK(memcmp(g_frame + 15, g_frame2 + 15, 1) != 0);
        CHECK_EQ(rdle32(g_frame2 + len - 4), rdle32(g_frame + len - 4));
        /* a switch decrements TTL and fixes the IP checksum: the ICRC still verifies */
        g_frame2[22]--;
        g_frame2[24] = g_frame2[25] = 0;
        {
            uint16_t c = roce_ipv4_checksum(g_frame2 + 14, 20);
            g_frame2[24] = (uint8_t)(c >> 8);
            g_frame2[25] = (uint8_t)c;
        }
        CHECK_EQ(ones_sum(g_frame2 + 14, 20), 0xffffu);
        CHECK_EQ(roce_icrc(g_frame2, len), rdle32(g_frame + len - 4));
        /* covered fields */
        t = s;
        t.psn = (s.psn + 1u) & 0xffffffu;
        roce_build_frame(&t, g_frame2, sizeof g_frame2);
        CHECK(rdle32(g_frame2 + len - 4) != rdle32(g_frame + len - 4));
        t = s;
        t.dest_qp ^= 1u;
        roce_build_frame(&t, g_frame2, sizeof g_frame2);
        CHECK(rdle32(g_frame2 + len - 4) != rdle32(g_frame + len - 4));
        t = s;
        t.src_ip ^= 0x100u;
        roce_build_frame(&t, g_frame2, sizeof g_frame2);
        CHECK(rdle32(g_frame2 + len - 4) != rdle32(g_frame + len - 4));
        if (s.payload_len > 0) { /* one payload bit */
            memcpy(g_frame2, g_frame, len);
            g_frame2[len - 5 - (s.payload_len + 3u) % 4u] ^= 0x10;
            CHECK(roce_icrc(g_frame2, len) != rdle32(g_frame + len - 4));
        }
    }
}

/* A short buffer gets the frame's first bytes; the returned length and the ICRC are those of
 * the whole frame (truncation never changes the ICRC that the wire carries). */
static void test_truncation_keeps_the_full_frame_icrc(void)
{
    roce_frame_spec s;
    size_t len, cut, i;
    random_spec(&s, ROCE_OP_WRITE_FIRST, 0);
    s.payload_len = 4096;
    len = roce_build_frame(&s, g_frame, sizeof g_frame);
    CHECK_EQ(len, 54 + 16 + 4096 + 4);
    for (cut = 0; cut <= len; cut += 97) {
        memset(g_frame2, 0xa5, sizeof g_frame2);
        CHECK_EQ(roce_build_frame(&s, g_frame2, cut), len);
        CHECK(memcmp(g_frame2, g_frame, cut) == 0);
        for (i = cut; i < cut + 8; i++) /* nothing past cap */
            CHECK_EQ(g_frame2[i], 0xa5);
    }
    CHECK_EQ(roce_build_frame(&s, NULL, 0), len);
    CHECK_EQ(roce_frame_len(&s), len);
    CHECK_EQ(rdle32(g_frame + len - 4), ref_icrc(g_frame, len));
}

static void test_invalid_specs_are_refused(void)
{
    roce_frame_spec s, good;
    static const uint8_t unsupported[] = { 0x03, 0x05, 0x09, 0x0B, 0x0C, 0x10, 0x12, 0x20, 0x64, 0x80, 0xff };
    size_t i;
    random_spec(&good, ROCE_OP_SEND_ONLY, 100u);
    CHECK(roce_frame_len(&good) > 0);
    for (i = 0; i < sizeof unsupported; i++) {
        s = good;
        s.opcode = unsupported[i];
        CHECK_EQ(roce_build_frame(&s, g_frame, sizeof g_frame), 0);
    }
    s = good; s.dscp = 64; CHECK_EQ(roce_frame_len(&s), 0);
    s = good; s.ecn = 4; CHECK_EQ(roce_frame_len(&s), 0);
    s = good; s.tver = 16; CHECK_EQ(roce_frame_len(&s), 0);
    s = good; s.dest_qp = 1u << 24; CHECK_EQ(roce_frame_len(&s), 0);
    s = good; s.psn = 1u << 24; CHECK_EQ(roce_frame_len(&s), 0);
    s = good; s.solicited = 2; CHECK_EQ(roce_frame_len(&s), 0);
    s = good; s.payload_len = ROCE_MAX_PAYLOAD + 1; CHECK_EQ(roce_frame_len(&s), 0);
    s = good; s.payload_len = ROCE_MAX_PAYLOAD; CHECK(roce_frame_len(&s) > 0);
    s = good; s.opcode = ROCE_OP_ACK; CHECK_EQ(roce_frame_len(&s), 0); /* an ACK has no payload */
    s.payload_len = 0; CHECK(roce_frame_len(&s) > 0);
    s.aeth_msn = 1u << 24; CHECK_EQ(roce_frame_len(&s), 0);
    s = good; s.opcode = ROCE_OP_CNP; CHECK_EQ(roce_frame_len(&s), 0);
    CHECK_EQ(roce_frame_len(NULL), 0);
    /* the largest frame (with a RETH) has IPv4 total length 65532: 16 bits, 4-byte aligned */
    s = good; s.opcode = ROCE_OP_WRITE_ONLY; s.payload_len = ROCE_MAX_PAYLOAD;
    CHECK_EQ(roce_build_frame(&s, g_frame, sizeof g_frame), 14u + 65532u);
    CHECK_EQ(rd16(g_frame + 16), 65532);
    CHECK_EQ(rd16(g_frame + 38), 65532 - 20);
    /* roce_icrc refuses what is not Ethernet/IPv4/UDP */
    CHECK_EQ(roce_icrc(cx4_cnp, 40), 0);
    memcpy(g_frame, cx4_cnp, sizeof cx4_cnp);
    g_frame[12] = 0x86;
    g_frame[13] = 0xdd;
    CHECK_EQ(roce_icrc(g_frame, sizeof cx4_cnp), 0);
}

/* ---------------------------------------------------------------- ACK, NAK, CNP, CE-marked data */

static size_t read_file(const char *path, uint8_t *buf, size_t cap);

/* Frames assembled by hand, field by field (IPv4 checksum and ICRC from Python's own sums:
 * zlib.crc32 over the masked pseudo packet; payload bytes from roce_payload_byte re-written in
 * Python). Receiver 02:..:fe / 10.0.1.1 answers sender 02:..:01 / 10.0.0.1, UDP source port
 * 0xc456, P_Key 0xffff, TVer 0, MigReq 0. */
static const uint8_t hand_ack[62] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xfe, 0x08, 0x00, /* Ethernet */
    0x45, 0x6a,             /* IPv4, TOS = DSCP 26 << 2 | ECT(0) */
    0x00, 0x30,             /* total length 48 = 20 + 8 + 12 + 4 + 4 */
    0x02, 0x03, 0x40, 0x00, /* id 0x0203, DF */
    0x40, 0x11, 0x23, 0x4f, /* TTL 64, UDP, checksum */
    0x0a, 0x00, 0x01, 0x01, 0x0a, 0x00, 0x00, 0x01,
    0xc4, 0x56, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00, /* UDP 0xc456 -> 4791, length 28, checksum 0 */
    0x11,                   /* BTH opcode: RC Acknowledge */
    0x00,                   /* SE 0, M 0, PadCnt 0, TVer 0 */
    0xff, 0xff,             /* P_Key */
    0x00,                   /* FECN 0, BECN 0 */
    0x00, 0x01, 0x23,       /* DestQP 0x000123 */
    0x00, 0x00, 0xab, 0xcd, /* AckReq 0, PSN 0x00abcd (the PSN acknowledged) */
    0x1f,                   /* AETH syndrome: ACK (0b00), credit count 31 (invalid: no credit) */
    0x00, 0x00, 0x42,       /* MSN 0x42 */
    0xa6, 0x4a, 0x4a, 0x8d, /* ICRC 0x8d4a4aa6, least significant byte first */
};
static const uint8_t hand_nak[62] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xfe, 0x08, 0x00,
    0x45, 0x6a, 0x00, 0x30, 0x02, 0x04, 0x40, 0x00, 0x40, 0x11, 0x23, 0x4e, /* id 0x0204 */
    0x0a, 0x00, 0x01, 0x01, 0x0a, 0x00, 0x00, 0x01,
    0xc4, 0x56, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00,
    0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x01, 0x23,
    0x00, 0x00, 0xab, 0xce, /* PSN 0x00abce: the PSN the responder expects */
    0x60,                   /* AETH syndrome: NAK (0b11), code 0 = PSN sequence error */
    0x00, 0x00, 0x42,
    0xa2, 0xb4, 0x78, 0xcb, /* ICRC 0xcb78b4a2 */
};
static const uint8_t hand_cnp[74] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xfe, 0x08, 0x00,
    0x45, 0xc1,             /* TOS = DSCP 48 << 2 | ECT(1) */
    0x00, 0x3c, 0x02, 0x05, 0x40, 0x00, 0x40, 0x11, 0x22, 0xea, /* length 60, id 0x0205 */
    0x0a, 0x00, 0x01, 0x01, 0x0a, 0x00, 0x00, 0x01,
    0xc4, 0x56, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, /* UDP length 40 */
    0x81,                   /* BTH opcode: CNP */
    0x00, 0xff, 0xff,
    0x40,                   /* FECN 0, BECN 1 */
    0x00, 0x01, 0x23,       /* DestQP: the QP whose packets were CE-marked */
    0x00, 0x00, 0x00, 0x00, /* AckReq 0, PSN 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 16 reserved bytes */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x1b, 0xbc, 0x04, 0x2a, /* ICRC 0x2a04bc1b */
};
static const uint8_t hand_data_ce[66] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xfe, 0x08, 0x00,
    0x45, 0x6b,             /* TOS = DSCP 26 << 2 | CE */
    0x00, 0x34, 0x02, 0x06, 0x40, 0x00, 0x40, 0x11, 0x23, 0x47, /* length 52, id 0x0206 */
    0x0a, 0x00, 0x01, 0x01, 0x0a, 0x00, 0x00, 0x01,
    0xc4, 0x56, 0x12, 0xb7, 0x00, 0x20, 0x00, 0x00, /* UDP length 32 */
    0x04,                   /* BTH opcode: RC SEND Only */
    0x30,                   /* SE 0, M 0, PadCnt 3, TVer 0 */
    0xff, 0xff, 0x00,
    0x00, 0x03, 0x21,       /* DestQP 0x000321 */
    0x80, 0x00, 0xab, 0xcd, /* AckReq 1, PSN 0x00abcd */
    0x5d, 0x5e, 0x5f, 0x60, 0x61, /* 5 payload bytes: seed 0x77, offsets 1000..1004 */
    0x00, 0x00, 0x00,       /* pad */
    0x7d, 0x08, 0x2c, 0x0f, /* ICRC 0x0f2c087d */
};

/* The template every shortcut copies from: opcode-specific fields set to junk that the
 * shortcuts must clear (SE, FECN, BECN, RETH, AETH, a payload length). */
static roce_frame_spec reply_template(void)
{
    roce_frame_spec t;
    memset(&t, 0, sizeof t);
    t.dst_mac[0] = 0x02, t.dst_mac[5] = 0x01;
    t.src_mac[0] = 0x02, t.src_mac[5] = 0xfe;
    t.src_ip = 0x0a000101u;
    t.dst_ip = 0x0a000001u;
    t.dscp = 26;
    t.ecn = ROCE_ECN_ECT0;
    t.udp_sport = 0xc456;
    t.opcode = ROCE_OP_WRITE_ONLY;
    t.solicited = 0;
    t.ack_req = 1;
    t.fecn = 1;
    t.becn = 1;
    t.dest_qp = 0x999999;
    t.psn = 0x777777;
    t.reth_va = 0x1122334455667788ull;
    t.reth_rkey = 0x99;
    t.reth_len = 4096;
    t.aeth_syndrome = 0x55;
    t.aeth_msn = 0x123456;
    t.payload_len = 100;
    t.payload_seed = 0x77;
    t.payload_offset = 1000;
    return t;
}

static void check_frame(const roce_frame_spec *s, const uint8_t *want, size_t want_len)
{
    size_t len = roce_build_frame(s, g_frame, sizeof g_frame), i;
    CHECK_EQ(len, want_len);
    for (i = 0; i < want_len && i < len; i++)
        if (g_frame[i] != want[i]) {
            char what[64];
            snprintf(what, sizeof what, "byte %u: built 0x%02x, by hand 0x%02x", (unsigned)i, g_frame[i], want[i]);
            test__fail(__FILE__, __LINE__, what);
        }
    /* the hand-made frame is itself right: header checksum and ICRC by the references here */
    CHECK_EQ(ones_sum(want + 14, 20), 0xffffu);
    CHECK_EQ(rdle32(want + want_len - 4), ref_icrc(want, want_len));
}

static void test_ack_nak_cnp_ce_frames_byte_for_byte(void)
{
    roce_frame_spec t = reply_template(), s;
    t.ip_id = 0x0203;
    CHECK_EQ(roce_spec_ack(&s, &t, 0x000123, 0x00abcd, 0x42, ROCE_AETH_CREDIT_INVALID), 0);
    check_frame(&s, hand_ack, sizeof hand_ack);
    t.ip_id = 0x0204;
    CHECK_EQ(roce_spec_nak(&s, &t, 0x000123, 0x00abce, 0x42, ROCE_NAK_PSN_SEQ_ERR), 0);
    check_frame(&s, hand_nak, sizeof hand_nak);
    CHECK_EQ(s.aeth_syndrome, 0x60);
    t.ip_id = 0x0205;
    t.dscp = 48;
    t.ecn = ROCE_ECN_ECT1;
    CHECK_EQ(roce_spec_cnp(&s, &t, 0x000123), 0);
    check_frame(&s, hand_cnp, sizeof hand_cnp);
    t = reply_template();
    t.ip_id = 0x0206;
    CHECK_EQ(roce_spec_data(&s, &t, ROCE_OP_SEND_ONLY, 0x000321, 0x00abcd, 5, ROCE_ECN_CE), 0);
    check_frame(&s, hand_data_ce, sizeof hand_data_ce);
    /* the other syndromes: ACK credit c is c, NAK code k is 0x60 | k (IBA 9.7.5.1) */
    t = reply_template();
    CHECK_EQ(roce_spec_ack(&s, &t, 1, 2, 3, 0), 0);
    CHECK_EQ(s.aeth_syndrome, 0x00);
    CHECK_EQ(roce_spec_ack(&s, &t, 1, 2, 3, 17), 0);
    CHECK_EQ(s.aeth_syndrome, 0x11);
    CHECK_EQ(roce_spec_nak(&s, &t, 1, 2, 3, ROCE_NAK_INVALID_REQ), 0);
    CHECK_EQ(s.aeth_syndrome, 0x61);
    CHECK_EQ(roce_spec_nak(&s, &t, 1, 2, 3, ROCE_NAK_INVALID_RD_REQ), 0);
    CHECK_EQ(s.aeth_syndrome, 0x64);
    /* data keeps the template's RETH on WRITE Only (VA at bytes 54..61 of the frame) */
    CHECK_EQ(roce_spec_data(&s, &t, ROCE_OP_WRITE_ONLY, 1, 2, 8, ROCE_ECN_ECT0), 0);
    CHECK_EQ(roce_build_frame(&s, g_frame, sizeof g_frame), 54u + 16u + 8u + 4u);
    CHECK_EQ((uint64_t)rd32(g_frame + 54) << 32 | rd32(g_frame + 58), 0x1122334455667788ull);
    CHECK_EQ(g_frame[15] & 3u, ROCE_ECN_ECT0);
}

static void test_shortcuts_refuse_out_of_range(void)
{
    roce_frame_spec t = reply_template(), s;
    roce_pcap p;
    char path[] = "/tmp/test_roce_shortXXXXXX";
    uint8_t file[64];
    int fd;
    CHECK_EQ(roce_spec_ack(&s, &t, 1, 2, 3, 31), 0);
    CHECK_EQ(roce_spec_ack(&s, &t, 1, 2, 3, 32), -1);
    CHECK_EQ(roce_spec_ack(&s, &t, 1u << 24, 2, 3, 0), -1);
    CHECK_EQ(roce_spec_ack(&s, &t, 1, 1u << 24, 3, 0), -1);
    CHECK_EQ(roce_spec_ack(&s, &t, 1, 2, 1u << 24, 0), -1);
    CHECK_EQ(roce_spec_nak(&s, &t, 1, 2, 3, 4), 0);
    CHECK_EQ(roce_spec_nak(&s, &t, 1, 2, 3, 5), -1); /* codes 5..31 are reserved */
    CHECK_EQ(roce_spec_nak(&s, &t, 0xffffffu, 0xffffffu, 0xffffffu, 0), 0);
    CHECK_EQ(roce_spec_cnp(&s, &t, 0xffffffu), 0);
    CHECK_EQ(roce_spec_cnp(&s, &t, 1u << 24), -1);
    CHECK_EQ(roce_spec_data(&s, &t, ROCE_OP_SEND_ONLY, 1, 2, 3, 3), 0);
    CHECK_EQ(roce_spec_data(&s, &t, ROCE_OP_SEND_ONLY, 1, 2, 3, 4), -1);
    CHECK_EQ(roce_spec_data(&s, &t, ROCE_OP_ACK, 1, 2, 0, 0), -1);
    CHECK_EQ(roce_spec_data(&s, &t, ROCE_OP_CNP, 1, 2, 0, 0), -1);
    CHECK_EQ(roce_spec_data(&s, &t, 0x55, 1, 2, 0, 0), -1);
    CHECK_EQ(roce_spec_data(&s, &t, ROCE_OP_SEND_ONLY, 1, 1u << 24, 0, 0), -1);
    CHECK_EQ(roce_spec_data(&s, &t, ROCE_OP_SEND_ONLY, 1, 2, ROCE_MAX_PAYLOAD + 1u, 0), -1);
    CHECK_EQ(roce_spec_cnp(NULL, &t, 1), -1);
    CHECK_EQ(roce_spec_cnp(&s, NULL, 1), -1);
    /* the pcap shortcuts count what they refuse and write nothing for it */
    fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    CHECK_EQ(roce_pcap_open(&p, path, 0), 0);
    CHECK_EQ(roce_pcap_ack(&p, 0, &t, 1, 2, 3, 32), -1);
    CHECK_EQ(roce_pcap_nak(&p, 0, &t, 1, 2, 3, 9), -1);
    CHECK_EQ(roce_pcap_cnp(&p, 0, &t, 1u << 24), -1);
    CHECK_EQ(roce_pcap_data(&p, 0, &t, ROCE_OP_SEND_ONLY, 1, 2, 3, 7), -1);
    CHECK_EQ(p.bad_specs, 4);
    CHECK_EQ(p.frames, 0);
    CHECK_EQ(roce_pcap_cnp(&p, 0, &t, 1), 0);
    CHECK_EQ(p.frames, 1);
    roce_pcap_close(&p);
    CHECK_EQ(read_file(path, file, sizeof file), 24u + 16u + 24u); /* a whole CNP is 74 B: cut at 64 */
    remove(path);
    CHECK_EQ(roce_pcap_cnp(&p, 0, &t, 1), -1); /* closed */
}

/* tshark (when installed) decodes a pcap of data (CE-marked and not), ACK, NAK and CNP frames
 * written with the shortcuts: opcode, PSN, QP, AETH syndrome and MSN, ECN, 0 malformed. */
static void test_tshark_decodes_ack_nak_cnp(void)
{
    struct want { unsigned op, psn, qp, syn, msn, ecn; } w[6] = {
        { 0x0a, 0x100, 0x321, 999, 999, 2 },  /* WRITE Only, ECT(0) */
        { 0x04, 0x101, 0x321, 999, 999, 3 },  /* SEND Only, CE */
        { 0x11, 0x101, 0x123, 0x1f, 7, 2 },   /* ACK */
        { 0x11, 0x102, 0x123, 0x60, 7, 2 },   /* NAK, PSN sequence error */
        { 0x11, 0x102, 0x123, 0x61, 8, 2 },   /* NAK, invalid request */
        { 0x81, 0, 0x123, 999, 999, 1 },      /* CNP */
    };
    char path[] = "/tmp/test_roce_tsharkXXXXXX", cmd[512], line[512];
    roce_frame_spec t = reply_template();
    roce_pcap p;
    FILE *f;
    int fd, n = 0;
    if (system("command -v tshark >/dev/null 2>&1") != 0) {
        printf("  (tshark not installed: decoding not checked)\n");
        return;
    }
    fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    CHECK_EQ(roce_pcap_open(&p, path, 0), 0);
    t.payload_len = 0;
    CHECK_EQ(roce_pcap_data(&p, 1000, &t, ROCE_OP_WRITE_ONLY, 0x321, 0x100, 1024, ROCE_ECN_ECT0), 0);
    CHECK_EQ(roce_pcap_data(&p, 2000, &t, ROCE_OP_SEND_ONLY, 0x321, 0x101, 37, ROCE_ECN_CE), 0);
    CHECK_EQ(roce_pcap_ack(&p, 3000, &t, 0x123, 0x101, 7, ROCE_AETH_CREDIT_INVALID), 0);
    CHECK_EQ(roce_pcap_nak(&p, 4000, &t, 0x123, 0x102, 7, ROCE_NAK_PSN_SEQ_ERR), 0);
    CHECK_EQ(roce_pcap_nak(&p, 5000, &t, 0x123, 0x102, 8, ROCE_NAK_INVALID_REQ), 0);
    t.dscp = 48;
    t.ecn = ROCE_ECN_ECT1;
    CHECK_EQ(roce_pcap_cnp(&p, 6000, &t, 0x123), 0);
    roce_pcap_close(&p);
    CHECK_EQ(p.frames, 6);
    snprintf(cmd, sizeof cmd,
             "tshark -r %s -n -d udp.port==4791,infiniband -o ip.check_checksum:TRUE -T fields -E separator=, "
             "-E occurrence=f -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.bth.destqp "
             "-e infiniband.aeth.syndrome -e infiniband.aeth.msn -e ip.dsfield.ecn -e _ws.malformed "
             "-e ip.checksum.status 2>/dev/null",
             path);
    f = popen(cmd, "r");
    CHECK(f != NULL);
    if (!f) {
        remove(path);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        char fld[8][64];
        unsigned v[6] = { 999, 999, 999, 999, 999, 999 };
        int k = 0, j;
        const char *c = line;
        memset(fld, 0, sizeof fld);
        for (j = 0; *c && *c != '\n' && k < 8; c++) { /* split on commas */
            if (*c == ',') {
                k++, j = 0;
                continue;
            }
            if (j < 63)
                fld[k][j++] = *c;
        }
        for (j = 0; j < 6; j++)
            if (fld[j][0])
                v[j] = (unsigned)strtoul(fld[j], NULL, 0);
        if (n < 6) {
            CHECK_EQ(v[0], w[n].op);
            CHECK_EQ(v[1], w[n].psn);
            CHECK_EQ(v[2], w[n].qp);
            CHECK_EQ(v[3], w[n].syn);
            CHECK_EQ(v[4], w[n].msn);
            CHECK_EQ(v[5], w[n].ecn);
            CHECK(fld[6][0] == '\0');      /* not malformed */
            CHECK(strcmp(fld[7], "1") == 0); /* IPv4 checksum status: 1 = good (0 bad, 2 unverified) */
        }
        n++;
    }
    CHECK_EQ(pclose(f), 0);
    CHECK_EQ(n, 6);
    remove(path);
}

static size_t read_file(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n;
    if (!f)
        return 0;
    n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

/* The pcap file byte for byte: global header, then per record ts / incl_len / orig_len and
 * the frame's first min(snaplen, len) bytes. Microsecond and nanosecond files. */
static void test_pcap_file_layout(void)
{
    static uint8_t file[1 << 20];
    char path[] = "/tmp/test_roce_pcapXXXXXX";
    const uint64_t t_ns[3] = { 0, 1234567891ull, 5000000000999ull };
    roce_frame_spec s[3];
    roce_pcap p;
    int fd = mkstemp(path), res;
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    random_spec(&s[0], ROCE_OP_ACK, 0);
    random_spec(&s[1], ROCE_OP_WRITE_ONLY, 0);
    s[1].payload_len = 1000; /* truncated at snaplen 200 */
    random_spec(&s[2], ROCE_OP_SEND_LAST, 0);
    s[2].payload_len = 131;  /* 54 + 131 + 1 + 4 = 190: whole */
    for (res = 0; res < 2; res++) {
        size_t n, at = 24;
        int k;
        CHECK_EQ(roce_pcap_open_ts(&p, path, 200, res ? ROCE_PCAP_NSEC : ROCE_PCAP_USEC), 0);
        for (k = 0; k < 3; k++)
            CHECK_EQ(roce_pcap_write(&p, t_ns[k], &s[k]), 0);
        CHECK_EQ(p.frames, 3);
        roce_pcap_close(&p);
        CHECK_EQ(p.io_error, 0);
        n = read_file(path, file, sizeof file);
        CHECK(n > 24);
        CHECK_EQ(rdle32(file), res ? 0xa1b23c4du : 0xa1b2c3d4u);
        CHECK_EQ(rdle32(file + 4), 2u | 4u << 16);
        CHECK_EQ(rdle32(file + 8), 0);
        CHECK_EQ(rdle32(file + 12), 0);
        CHECK_EQ(rdle32(file + 16), 200);
        CHECK_EQ(rdle32(file + 20), 1);
        for (k = 0; k < 3 && at + 16 <= n; k++) {
            size_t len = roce_build_frame(&s[k], g_frame, sizeof g_frame), incl = len < 200 ? len : 200;
            CHECK_EQ(rdle32(file + at), t_ns[k] / 1000000000u);
            CHECK_EQ(rdle32(file + at + 4), res ? t_ns[k] % 1000000000u : t_ns[k] % 1000000000u / 1000u);
            CHECK_EQ(rdle32(file + at + 8), incl);
            CHECK_EQ(rdle32(file + at + 12), len);
            CHECK(at + 16 + incl <= n && memcmp(file + at + 16, g_frame, incl) == 0);
            at += 16 + incl;
        }
        CHECK_EQ(k, 3);
        CHECK_EQ(at, n);
    }
    /* snaplen 0 means 65535; an invalid spec is refused and counted; the file stays valid */
    CHECK_EQ(roce_pcap_open(&p, path, 0), 0);
    CHECK_EQ(p.snaplen, 65535);
    s[0].opcode = 0x55;
    CHECK_EQ(roce_pcap_write(&p, 0, &s[0]), -1);
    CHECK_EQ(p.bad_specs, 1);
    CHECK_EQ(p.frames, 0);
    roce_pcap_close(&p);
    CHECK_EQ(read_file(path, file, sizeof file), 24);
    remove(path);
    CHECK_EQ(roce_pcap_open(&p, "/nonexistent-dir/x.pcap", 128), -1);
    CHECK_EQ(roce_pcap_write(&p, 0, &s[1]), -1);
    CHECK_EQ(roce_pcap_open_ts(&p, path, 128, 7), -1);
}

/* ---------------------------------------------------------------- --write FILE */

/* Every opcode kind, each ECN codepoint, payloads with every pad count, a frame longer than
 * the snaplen (truncated record), tiny and PMTU-sized packets. */
static int write_demo(const char *path)
{
    roce_pcap p;
    roce_frame_spec s;
    uint64_t t = 1000;
    uint32_t psn = 100, i;
    size_t k;
    if (roce_pcap_open(&p, path, 256) != 0) {
        perror(path);
        return 1;
    }
    memset(&s, 0, sizeof s);
    s.src_mac[0] = 0x02, s.src_mac[5] = 0x01;
    s.dst_mac[0] = 0x02, s.dst_mac[5] = 0xfe;
    s.src_ip = 0x0a000001u;
    s.dst_ip = 0x0a000101u;
    s.dscp = 26;
    s.dest_qp = 0x000123;
    s.flow_hash = 0x5eed;
    s.reth_va = 0x7f0000001000ull;
    s.reth_rkey = 0x1234;
    for (k = 0; k < N_OPS; k++) {
        for (i = 0; i < 4; i++) {
            s.opcode = all_ops[k];
            s.ecn = (uint8_t)i;
            s.psn = psn++ & 0xffffffu;
            s.ack_req = (uint8_t)(i == 3);
            s.payload_len = (s.opcode == ROCE_OP_ACK || s.opcode == ROCE_OP_CNP) ? 0u : 1u + 61u * i + (uint32_t)k;
            if (s.opcode == ROCE_OP_WRITE_FIRST || s.opcode == ROCE_OP_WRITE_MIDDLE || s.opcode == ROCE_OP_SEND_FIRST)
                s.payload_len = i == 3 ? 1024u : 64u * (i + 1u); /* First/Middle carry whole PMTU-like units */
            /* the RETH holds the whole message's DMA length (IBA 9.3.3): a WRITE Only's is its
             * payload; these WRITE Firsts start messages of four such units that never finish */
            s.reth_len = s.opcode == ROCE_OP_WRITE_FIRST ? 4u * s.payload_len : s.payload_len;
            s.aeth_msn = psn & 0xffffffu;
            s.payload_seed = psn;
            if (roce_pcap_write(&p, t, &s) != 0)
                return 1;
            t += 1234;
        }
    }
    /* one whole RDMA WRITE message on its own QP: First + Middle + Last, consecutive PSNs, the
     * First's RETH = the three payloads (tools/pcap_check.sh adds them up) */
    s.ecn = ROCE_ECN_ECT0;
    s.dest_qp = 0x000456;
    s.reth_len = 1024u + 1024u + 100u;
    for (i = 0; i < 3; i++) {
        s.opcode = i == 0 ? ROCE_OP_WRITE_FIRST : i == 1 ? ROCE_OP_WRITE_MIDDLE : ROCE_OP_WRITE_LAST;
        s.psn = 700u + i;
        s.payload_len = i == 2 ? 100u : 1024u;
        s.payload_seed = 700u + i;
        if (roce_pcap_write(&p, t, &s) != 0)
            return 1;
        t += 1234;
    }
    s.dest_qp = 0x000123;
    /* a go-back-N exchange with the shortcuts: a CE-marked packet, the CNP it causes, a lost
     * packet's NAK (PSN sequence error, PSN = the one expected), the retransmission's ACK */
    s.ecn = ROCE_ECN_ECT0;
    if (roce_pcap_data(&p, t, &s, ROCE_OP_SEND_MIDDLE, 0x000123, 500, 1024, ROCE_ECN_CE) != 0 ||
        roce_pcap_cnp(&p, t + 1000, &s, 0x000123) != 0 ||
        roce_pcap_nak(&p, t + 2000, &s, 0x000123, 501, 77, ROCE_NAK_PSN_SEQ_ERR) != 0 ||
        roce_pcap_data(&p, t + 3000, &s, ROCE_OP_SEND_LAST, 0x000123, 501, 100, ROCE_ECN_ECT0) != 0 ||
        roce_pcap_ack(&p, t + 4000, &s, 0x000123, 501, 78, ROCE_AETH_CREDIT_INVALID) != 0)
        return 1;
    roce_pcap_close(&p);
    printf("wrote %s: %llu frames (%llu B on the wire, %llu B captured)\n", path, (unsigned long long)p.frames,
           (unsigned long long)p.bytes_on_wire, (unsigned long long)p.bytes_written);
    return p.io_error;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_demo(argv[2]);
    if (argc != 1) {
        fprintf(stderr, "usage: %s [--write FILE.pcap]\n", argv[0]);
        return 2;
    }
    g_rng = test_seed(0x726f6365ull);
    RUN(test_icrc_of_a_hardware_cnp);
    RUN(test_frame_built_in_python);
    RUN(test_icrc_matches_independent_crc);
    RUN(test_fields_at_their_offsets);
    RUN(test_icrc_masks_what_switches_rewrite);
    RUN(test_truncation_keeps_the_full_frame_icrc);
    RUN(test_invalid_specs_are_refused);
    RUN(test_pcap_file_layout);
    RUN(test_ack_nak_cnp_ce_frames_byte_for_byte);
    RUN(test_shortcuts_refuse_out_of_range);
    RUN(test_tshark_decodes_ack_nak_cnp);
    return test_summary();
}
