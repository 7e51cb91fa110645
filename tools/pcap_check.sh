#!/usr/bin/env bash
# tools/pcap_check.sh FILE.pcap -- reads a RoCEv2 capture with tshark and judges it.
#   malformed   frames tshark marks _ws.malformed or with an expert error (IPv4 header
#               checksums are validated), plus frames whose Info says "[Malformed Packet]"
#               although they were captured whole
#   roce_frames frames decoded with an InfiniBand BTH (UDP port 4791 as RoCEv2)
#   truncated   frames cut by the snaplen (InfiniBand's dissector then writes "Invalid Packet
#               Length from LRH! [Malformed Packet]" in Info without marking the frame: it
#               only finds fewer captured bytes than the IP length announces -- not counted)
#   icrc_checked / icrc_bad  whole RoCE frames whose last 4 bytes are compared with an ICRC
#               computed here in Python (zlib.crc32 over the masked pseudo packet, as Linux
#               rxe does; stored least significant byte first)
#   icrc_shown_by_tshark  of those, frames where tshark shows infiniband.invariant.crc: it
#               must equal the last 4 bytes read big-endian (tshark 4.0 shows the field but
#               does not validate it, and shows none for a CNP, whose opcode it does not know)
#   acks / naks / rnr_naks  RC Acknowledge frames (BTH opcode 0x11) by the kind in their AETH
#               syndrome (IBA 9.7.5.1: bits 6..5 = 00 ACK, 11 NAK, 01 RNR NAK); nak_psn_seq of
#               the NAKs, those with code 0 (PSN sequence error, syndrome 0x60)
#   aeth_bad    ACK frames whose syndrome is not one of those (bit 7 set, kind 10, or a NAK code
#               above 4, the last defined): counted as errors
#   cnps        RoCEv2 CNPs (BTH opcode 0x81)
#   ce_marked   frames whose IPv4 ECN field is CE (3)
#   reth_checked / reth_bad  RDMA WRITE messages whose RETH DMA length was checked against
#               the payload the frames carry (IBA 9.3.3: the RETH of WRITE First / Only holds
#               the length of the whole message): a WRITE Only's DMA length must equal its
#               payload; a WRITE First's must exceed it, and equal the payload of First +
#               Middle.. + Last when those follow with consecutive PSNs on the QP (a message
#               whose PSNs jump -- a retransmission in between -- counts in reth_unverified)
# Heuristic payload dissectors (RPC-over-RDMA, SMB Direct, iSER, ...) are turned off: the
# payload is opaque bytes, and one guessing a protocol in them and failing is not a RoCE error.
# Prints `RESULT pcap_frames=N malformed=M roce_frames=K truncated=T icrc_checked=C icrc_bad=B
# icrc_shown_by_tshark=S acks=A naks=K nak_psn_seq=Q rnr_naks=R aeth_bad=X cnps=P ce_marked=E
# reth_checked=W reth_bad=V reth_unverified=U`; exits 1 when malformed > 0, roce_frames !=
# pcap_frames, icrc_bad > 0, aeth_bad > 0, reth_bad > 0 or there is no frame, 2 when it cannot run.
set -u
file=${1:-}
[ -n "$file" ] || { echo "usage: $0 FILE.pcap" >&2; exit 2; }
[ -r "$file" ] || { echo "pcap_check: cannot read $file" >&2; exit 2; }
command -v tshark >/dev/null 2>&1 || { echo "pcap_check: tshark is not installed (bash tools/deps.sh test)" >&2; exit 2; }

# the heuristic payload dissectors registered on infiniband.payload (Wireshark 4.0 names); a
# name this tshark does not know is dropped and the run retried
heur_names=(rpcrdma_infiniband smb_direct_infiniband smcr_infiniband iser_infiniband nvme_rdma lnet_ib
    sdp_infiniband fc_infiniband eth_over_ib mellanox_eoib)
out=$(mktemp)
trap 'rm -f "$out" "$out.err"' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10 11; do
    heur=()
    for n in "${heur_names[@]}"; do heur+=(--disable-heuristic "$n"); done
    if tshark -r "$file" -n -d udp.port==4791,infiniband -o ip.check_checksum:TRUE "${heur[@]}" \
        -T fields -E separator=/t -E occurrence=a -E aggregator=';' \
        -e frame.number -e frame.len -e frame.cap_len -e _ws.malformed -e _ws.expert.severity \
        -e infiniband.bth.opcode -e infiniband.invariant.crc -e infiniband.aeth.syndrome -e ip.dsfield.ecn \
        -e _ws.col.Info >"$out" 2>"$out.err"; then
        ok=1
        break
    fi
    ok=0
    unknown=$(sed -n 's/^tshark: No such protocol \(.*\), can.t disable$/\1/p' "$out.err" | head -n 1)
    [ -n "$unknown" ] || break
    kept=()
    for n in "${heur_names[@]}"; do [ "$n" = "$unknown" ] || kept+=("$n"); done
    heur_names=("${kept[@]}")
done
if [ "$ok" -ne 1 ]; then
    grep -v 'Running as user "root"' "$out.err" >&2
    exit 2
fi

python3 - "$file" "$out" <<'EOF'
import struct, sys, zlib

pcap_path, fields_path = sys.argv[1], sys.argv[2]
EXPERT_ERROR = 0x00800000  # _ws.expert.severity of an error

def records(path):
    data = open(path, 'rb').read()
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        e = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        e = '>'
    else:
        sys.exit('pcap_check: %s is not a pcap file' % path)
    at = 24
    while at + 16 <= len(data):
        _, _, incl, orig = struct.unpack(e + 'IIII', data[at:at + 16])
        yield orig, data[at + 16:at + 16 + incl]
        at += 16 + incl

def icrc(frame):
    """RoCEv2 ICRC of a whole IPv4 frame: CRC-32 of 8 x 0xff, the IPv4 header with TOS, TTL
    and checksum set to ones, UDP with checksum set to ones, BTH byte 4 set to ones, the rest."""
    ihl = (frame[14] & 15) * 4
    body = bytearray(frame[14:-4])
    body[1] = 0xff
    body[8] = 0xff
    body[10:12] = b'\xff\xff'
    body[ihl + 6:ihl + 8] = b'\xff\xff'
    body[ihl + 8 + 4] = 0xff
    return zlib.crc32(b'\xff' * 8 + bytes(body))

recs = list(records(pcap_path))
frames = malformed = roce = truncated = checked = bad = shown_by_tshark = 0
acks = naks = nak_psn_seq = rnr_naks = aeth_bad = cnps = ce_marked = 0
OP_ACK, OP_CNP = 0x11, 0x81

def num(x):
    x = x.split(';')[0]
    return int(x, 0) if x else None
for line in open(fields_path, encoding='utf-8', errors='replace'):
    f = line.rstrip('\n').split('\t')
    if len(f) < 10 or not f[0].isdigit():
        continue
    frames += 1
    fnum, wire, cap = int(f[0]), int(f[1]), int(f[2])
    severities = [int(x, 0) for x in f[4].split(';') if x]
    is_bad = bool(f[3]) or any(s >= EXPERT_ERROR for s in severities)
    if cap < wire:
        truncated += 1
    elif '[Malformed Packet]' in f[9]:
        is_bad = True
    if is_bad:
        malformed += 1
        if malformed <= 5:
            print('malformed frame %d: %s %s' % (fnum, f[3], f[9]))
    if f[5]:
        roce += 1
    elif frames - roce <= 5:
        print('not RoCE: frame %d: %s' % (fnum, f[9]))
    opcode, syndrome, ecn = num(f[5]), num(f[7]), num(f[8])
    if ecn == 3:
        ce_marked += 1
    if opcode == OP_CNP:
        cnps += 1
    elif opcode == OP_ACK:
        kind = None if syndrome is None or syndrome & 0x80 else syndrome & 0x60
        if kind == 0x00:
            acks += 1
        elif kind == 0x60 and syndrome & 0x1f <= 4:
            naks += 1
            nak_psn_seq += syndrome == 0x60
        elif kind == 0x20:
            rnr_naks += 1
        else:
            aeth_bad += 1
            if aeth_bad <= 5:
                print('bad AETH syndrome frame %d: %s %s' % (fnum, f[7], f[9]))
    if f[5] and cap == wire and fnum <= len(recs):
        checked += 1
        raw = recs[fnum - 1][1]
        want = icrc(raw)
        shown = int(f[6], 16) if f[6] else None
        # the ICRC sits in the last 4 bytes, least significant byte first; tshark shows them
        # as a big-endian number
        if shown is not None:
            shown_by_tshark += 1
        if struct.unpack('<I', raw[-4:])[0] != want or (shown is not None and shown != struct.unpack('>I', raw[-4:])[0]):
            bad += 1
            if bad <= 5:
                print('bad ICRC frame %d: in frame %s, tshark %s, computed %08x (stored LE)'
                      % (fnum, raw[-4:].hex(), f[6], want))
# RETH DMA lengths, from the frames' bytes (IPv4 without options, UDP, BTH at offset 42)
OP_W_FIRST, OP_W_MIDDLE, OP_W_LAST, OP_W_ONLY = 0x06, 0x07, 0x08, 0x0a
reth_checked = reth_bad = reth_unverified = 0
open_msg = {}  # dest QP -> [DMA length, payload so far, next PSN]
for n, (orig, raw) in enumerate(recs, 1):
    if len(raw) < 70 or raw[12:14] != b'\x08\x00' or raw[23] != 17:
        continue
    op = raw[42]
    if op not in (OP_W_FIRST, OP_W_MIDDLE, OP_W_LAST, OP_W_ONLY):
        continue
    ip_len = struct.unpack('>H', raw[16:18])[0]
    pad = (raw[43] >> 4) & 3
    qp = raw[47:50]
    psn = struct.unpack('>I', b'\x00' + raw[51:54])[0]
    has_reth = op in (OP_W_FIRST, OP_W_ONLY)
    payload = ip_len - 20 - 8 - 12 - (16 if has_reth else 0) - 4 - pad
    if has_reth:
        dma = struct.unpack('>I', raw[66:70])[0]
        if qp in open_msg:
            reth_unverified += 1  # the previous message on this QP did not end in order
            del open_msg[qp]
        if op == OP_W_ONLY or dma <= payload:
            reth_checked += 1
            if dma != payload or op == OP_W_FIRST:
                reth_bad += 1
                if reth_bad <= 5:
                    print('bad RETH DMA length frame %d: opcode 0x%02x, DMA length %d, payload %d' % (n, op, dma, payload))
            continue
        open_msg[qp] = [dma, payload, (psn + 1) & 0xffffff, n]
        continue
    m = open_msg.get(qp)
    if m is None:
        continue
    if psn != m[2]:
        reth_unverified += 1
        del open_msg[qp]
        continue
    m[1] += payload
    m[2] = (psn + 1) & 0xffffff
    if op == OP_W_LAST:
        reth_checked += 1
        if m[1] != m[0]:
            reth_bad += 1
            if reth_bad <= 5:
                print('bad RETH DMA length: the message from frame %d carries %d B, its RETH says %d' % (m[3], m[1], m[0]))
        del open_msg[qp]
reth_unverified += len(open_msg)
if frames != len(recs):
    print('tshark read %d frames, the file holds %d records' % (frames, len(recs)))
    malformed += abs(len(recs) - frames)
print('RESULT pcap_frames=%d malformed=%d roce_frames=%d truncated=%d icrc_checked=%d icrc_bad=%d icrc_shown_by_tshark=%d'
      ' acks=%d naks=%d nak_psn_seq=%d rnr_naks=%d aeth_bad=%d cnps=%d ce_marked=%d'
      ' reth_checked=%d reth_bad=%d reth_unverified=%d'
      % (frames, malformed, roce, truncated, checked, bad, shown_by_tshark,
         acks, naks, nak_psn_seq, rnr_naks, aeth_bad, cnps, ce_marked,
         reth_checked, reth_bad, reth_unverified))
sys.exit(1 if frames == 0 or malformed or roce != frames or bad or aeth_bad or reth_bad else 0)
EOF
