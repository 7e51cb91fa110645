// incast_ns3.cc - a 2:1 incast at packet level in ns-3 (Debian's ns-3 3.37), the
// "what users run today" side of the composed RNIC's speed comparison (issue 11;
// tools/bench_ns3_speed.sh runs both and compares their CPU time).
//
// Topology: sender0 and sender1 -> switch -> receiver. Every host is its own node,
// joined to one switch node (IP forwarding, global routing) by a point-to-point
// link of --rate-gbps (100) with --prop-ns (1000) propagation per hop.
//
// Traffic: each sender keeps its NIC busy at line rate with UDP datagrams of
// --payload (1024) bytes: it fills its device queue with --host-queue-pkts
// packets at t = 0 and sends one more each time the device takes a packet from
// that queue to transmit it (the device's PhyTxBegin trace), so the link never idles
// and the host never drops. The traffic-control queue discs are removed, so the
// device queues are the only buffers; the switch's egress queue to the receiver
// is DropTail, --switch-buf-bytes (1,000,000) bytes, and drops what does not fit
// (2:1 at line rate: about half of what is sent, after the buffer fills).
// The receiver counts the datagrams its UDP socket delivers.
//
// Run for --sim-ms (10) simulated milliseconds. Prints
//   INFO sent=... switch_drops=... host_drops=... wire_bytes_per_pkt=... line_rate_pps=...
//   delivered_packets=N sim_ms=M
// (the last line is what tools/bench_ns3_speed.sh reads).
//
// Build (Debian 12, ns-3 3.37; one command line):
//   g++ -std=c++17 -O2 -o build/incast_ns3 examples/ns3/incast_ns3.cc
//     $(pkg-config --cflags --libs ns3-core ns3-network ns3-internet
//       ns3-point-to-point ns3-applications ns3-traffic-control)

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cinttypes>
#include <cstdio>
#include <string>

using namespace ns3;

namespace
{

const uint16_t kPort = 4791; // the RoCEv2 port, for the look of it (plain UDP here)

uint64_t g_delivered = 0;
uint64_t g_deliveredBytes = 0;
uint64_t g_switchDrops = 0;
uint64_t g_hostDrops = 0;

// A sender that keeps its device queue holding `depth` packets: one datagram per
// packet the device starts to transmit.
class LineRateSender : public Application
{
  public:
    void Setup(Ptr<PointToPointNetDevice> dev, Address peer, uint32_t payload, uint32_t depth)
    {
        m_dev = dev;
        m_peer = peer;
        m_payload = payload;
        m_depth = depth;
    }

    uint64_t Sent() const { return m_sent; }

  private:
    void StartApplication() override
    {
        m_sock = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        m_sock->Bind();
        m_sock->Connect(m_peer);
        // PhyTxBegin fires once the device is busy with the packet it took from
        // its queue (the queue's Dequeue trace fires before that: a send from it
        // would re-enter the idle device)
        m_dev->TraceConnectWithoutContext("PhyTxBegin",
                                          MakeCallback(&LineRateSender::OnTxBegin, this));
        m_running = true;
        // the first packet goes straight onto the wire (the device is idle), the
        // rest wait in the queue
        for (uint32_t i = 0; i < m_depth + 1; i++)
        {
            SendOne();
        }
    }

    void StopApplication() override
    {
        m_running = false;
        if (m_sock)
        {
            m_sock->Close();
        }
    }

    void OnTxBegin(Ptr<const Packet>)
    {
        if (m_running)
        {
            SendOne();
        }
    }

    void SendOne()
    {
        if (m_sock->Send(Create<Packet>(m_payload)) >= 0)
        {
            m_sent++;
        }
    }

    Ptr<PointToPointNetDevice> m_dev;
    Ptr<Socket> m_sock;
    Address m_peer;
    uint32_t m_payload = 1024;
    uint32_t m_depth = 16;
    uint64_t m_sent = 0;
    bool m_running = false;
};

void
OnReceive(Ptr<Socket> sock)
{
    Ptr<Packet> p;
    while ((p = sock->Recv()))
    {
        g_delivered++;
        g_deliveredBytes += p->GetSize();
    }
}

void
OnSwitchDrop(Ptr<const Packet>)
{
    g_switchDrops++;
}

void
OnHostDrop(Ptr<const Packet>)
{
    g_hostDrops++;
}

void
OnTcDrop(Ptr<const Packet>)
{
    g_hostDrops++;
}

} // namespace

int
main(int argc, char* argv[])
{
    // picoseconds: at the default ns resolution a 1054 B frame at 100 Gb/s takes
    // 84 ns instead of 84.32 ns (ns-3 rounds), a 0.4 % faster link
    Time::SetResolution(Time::PS);
    double rateGbps = 100.0;
    uint32_t propNs = 1000;
    uint32_t payload = 1024;
    double simMs = 10.0;
    uint32_t switchBufBytes = 1000000;
    uint32_t hostQueuePkts = 16;

    CommandLine cmd(__FILE__);
    cmd.AddValue("rate-gbps", "link rate of every point-to-point link, Gb/s", rateGbps);
    cmd.AddValue("prop-ns", "propagation delay per hop, ns", propNs);
    cmd.AddValue("payload", "UDP payload bytes per packet", payload);
    cmd.AddValue("sim-ms", "simulated time, ms", simMs);
    cmd.AddValue("switch-buf-bytes", "switch egress (to the receiver) DropTail queue, bytes",
                 switchBufBytes);
    cmd.AddValue("host-queue-pkts", "packets each sender keeps in its NIC queue", hostQueuePkts);
    cmd.Parse(argc, argv);
    if (rateGbps <= 0 || payload == 0 || payload > 65507 || simMs <= 0 || hostQueuePkts == 0 ||
        switchBufBytes == 0)
    {
        std::fprintf(stderr, "incast_ns3: invalid option value\n");
        return 2;
    }
    const uint32_t mtu = payload + 28 > 1500 ? payload + 28 : 1500;

    NodeContainer senders;
    senders.Create(2);
    Ptr<Node> sw = CreateObject<Node>();
    Ptr<Node> rx = CreateObject<Node>();

    InternetStackHelper stack;
    stack.Install(senders);
    stack.Install(sw);
    stack.Install(rx);

    PointToPointHelper p2p;
    char rate[64];
    std::snprintf(rate, sizeof rate, "%.6fGbps", rateGbps);
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(propNs)));
    // host queues: deep enough for the refill depth, never drop
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, hostQueuePkts + 64)));

    NetDeviceContainer l0 = p2p.Install(senders.Get(0), sw);
    NetDeviceContainer l1 = p2p.Install(senders.Get(1), sw);
    NetDeviceContainer l2 = p2p.Install(sw, rx);

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(l0);
    addr.SetBase("10.0.1.0", "255.255.255.0");
    addr.Assign(l1);
    addr.SetBase("10.0.2.0", "255.255.255.0");
    Ipv4InterfaceContainer i2 = addr.Assign(l2);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // no queue discs: the device queues are the only buffers
    TrafficControlHelper tch;
    for (NetDeviceContainer* c : {&l0, &l1, &l2})
    {
        tch.Uninstall(*c);
    }

    // the switch's egress queue to the receiver: DropTail in bytes
    Ptr<PointToPointNetDevice> swOut = DynamicCast<PointToPointNetDevice>(l2.Get(0));
    swOut->GetQueue()->SetAttribute(
        "MaxSize",
        QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, switchBufBytes)));
    swOut->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnSwitchDrop));
    // without a queue disc, a packet that finds the device queue stopped (less than
    // one MTU free) is dropped by the TrafficControlLayer: its "TcDrop" trace
    bool ok = sw->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop",
        MakeCallback(&OnSwitchDrop));

    // receiver socket
    Ptr<Socket> sink = Socket::CreateSocket(rx, UdpSocketFactory::GetTypeId());
    sink->SetAttribute("RcvBufSize", UintegerValue(1u << 30));
    sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
    sink->SetRecvCallback(MakeCallback(&OnReceive));

    Ptr<LineRateSender> apps[2];
    NetDeviceContainer* links[2] = {&l0, &l1};
    for (uint32_t h = 0; h < 2; h++)
    {
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(links[h]->Get(0));
        dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnHostDrop));
        ok = ok && senders.Get(h)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                       "TcDrop",
                       MakeCallback(&OnTcDrop));
        apps[h] = CreateObject<LineRateSender>();
        apps[h]->Setup(dev, InetSocketAddress(i2.GetAddress(1), kPort), payload, hostQueuePkts);
        senders.Get(h)->AddApplication(apps[h]);
        apps[h]->SetStartTime(Seconds(0));
    }

    if (!ok)
    {
        std::fprintf(stderr, "incast_ns3: cannot connect the TcDrop traces\n");
        return 1;
    }
    Simulator::Stop(MicroSeconds(simMs * 1000.0));
    Simulator::Run();

    const uint32_t wire = payload + 8 + 20 + 2; // UDP, IPv4, PPP header
    std::printf("INFO sent=%" PRIu64 " sent0=%" PRIu64 " sent1=%" PRIu64 " switch_drops=%" PRIu64
                " host_drops=%" PRIu64 " delivered_bytes=%" PRIu64
                " wire_bytes_per_pkt=%u line_rate_pps=%.0f rate_gbps=%g prop_ns=%u"
                " switch_buf_bytes=%u\n",
                apps[0]->Sent() + apps[1]->Sent(),
                apps[0]->Sent(),
                apps[1]->Sent(),
                g_switchDrops,
                g_hostDrops,
                g_deliveredBytes,
                wire,
                rateGbps * 1e9 / (wire * 8.0),
                rateGbps,
                propNs,
                switchBufBytes);
    std::printf("delivered_packets=%" PRIu64 " sim_ms=%g\n", g_delivered, simMs);
    Simulator::Destroy();
    return 0;
}
