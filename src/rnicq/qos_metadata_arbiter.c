/* The Transfer Metadata table's read arbiter (thesis §3.12, Fig. 3.14): between the message
 * handler's S2 and segmenter stage 1. */

static bool rq__arbiter_grant(rq_qos *q, bool handler, bool other_wants)
{
    if (!other_wants || (handler ? !q->arb_handler_last : q->arb_handler_last)) {
        q->arb_handler_last = handler;
        return true;
    }
    return false;
}
