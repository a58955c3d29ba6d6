package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every field of every CM message flyweight, checked against its position as the kernel's
 * include/rdma/ibta_vol1_c12.h declares it (byte offset after the MAD header, bit offset from the MSB, width):
 * setting all ones into a zeroed MAD sets exactly those bits, setting zero into an all-ones MAD clears exactly those
 * bits, out-of-range values are masked, and random values round-trip.
 */
class CmFieldsTest {
    private static final int OFF = 5;
    private static final int SLACK = 7;

    interface Get {
        long get(MemorySegment s, long off);
    }

    interface Set {
        void set(MemorySegment s, long off, long v);
    }

    interface IntGet {
        int get(MemorySegment s, long off);
    }

    interface IntSet {
        void set(MemorySegment s, long off, int v);
    }

    interface BoolGet {
        boolean get(MemorySegment s, long off);
    }

    interface BoolSet {
        void set(MemorySegment s, long off, boolean v);
    }

    interface LongGet {
        long get(MemorySegment s, long off);
    }

    interface LongSet {
        void set(MemorySegment s, long off, long v);
    }

    /** A field at IBTA byte {@code ibtaByte} (counted after the 24-byte MAD header), bit {@code bit}, width. */
    record Field(String name, int ibtaByte, int bit, int width, Get get, Set set) {
        long firstBit() {
            return (long) (OFF + Mad.DATA + ibtaByte) * 8 + bit;
        }

        long mask() {
            return width == 64 ? -1L : (1L << width) - 1;
        }
    }

    private static Field i(String name, int ibtaByte, int bit, int width, IntGet g, IntSet s) {
        return new Field(name, ibtaByte, bit, width, (m, o) -> g.get(m, o) & 0xFFFF_FFFFL,
                (m, o, v) -> s.set(m, o, (int) v));
    }

    private static Field b(String name, int ibtaByte, int bit, BoolGet g, BoolSet s) {
        return new Field(name, ibtaByte, bit, 1, (m, o) -> g.get(m, o) ? 1 : 0, (m, o, v) -> s.set(m, o, v != 0));
    }

    private static Field l(String name, int ibtaByte, LongGet g, LongSet s) {
        return new Field(name, ibtaByte, 0, 64, g::get, s::set);
    }

    static List<Field> req() {
        List<Field> f = new ArrayList<>(List.of(
                i("LocalCommId", 0, 0, 32, CmReq::localCommId, CmReq::setLocalCommId),
                l("ServiceId", 8, CmReq::serviceId, CmReq::setServiceId),
                l("LocalCaGuid", 16, CmReq::localCaGuid, CmReq::setLocalCaGuid),
                i("LocalQkey", 28, 0, 32, CmReq::localQkey, CmReq::setLocalQkey),
                i("LocalQpn", 32, 0, 24, CmReq::localQpn, CmReq::setLocalQpn),
                i("ResponderResources", 35, 0, 8, CmReq::responderResources, CmReq::setResponderResources),
                i("LocalEecn", 36, 0, 24, CmReq::localEecn, CmReq::setLocalEecn),
                i("InitiatorDepth", 39, 0, 8, CmReq::initiatorDepth, CmReq::setInitiatorDepth),
                i("RemoteEecn", 40, 0, 24, CmReq::remoteEecn, CmReq::setRemoteEecn),
                i("RemoteCmResponseTimeout", 43, 0, 5, CmReq::remoteCmResponseTimeout,
                        CmReq::setRemoteCmResponseTimeout),
                i("TransportServiceType", 43, 5, 2, CmReq::transportServiceType, CmReq::setTransportServiceType),
                b("EndToEndFlowControl", 43, 7, CmReq::endToEndFlowControl, CmReq::setEndToEndFlowControl),
                i("StartingPsn", 44, 0, 24, CmReq::startingPsn, CmReq::setStartingPsn),
                i("LocalCmResponseTimeout", 47, 0, 5, CmReq::localCmResponseTimeout,
                        CmReq::setLocalCmResponseTimeout),
                i("RetryCount", 47, 5, 3, CmReq::retryCount, CmReq::setRetryCount),
                i("PartitionKey", 48, 0, 16, CmReq::partitionKey, CmReq::setPartitionKey),
                i("PathPacketPayloadMtu", 50, 0, 4, CmReq::pathPacketPayloadMtu, CmReq::setPathPacketPayloadMtu),
                b("RdcExists", 50, 4, CmReq::rdcExists, CmReq::setRdcExists),
                i("RnrRetryCount", 50, 5, 3, CmReq::rnrRetryCount, CmReq::setRnrRetryCount),
                i("MaxCmRetries", 51, 0, 4, CmReq::maxCmRetries, CmReq::setMaxCmRetries),
                b("Srq", 51, 4, CmReq::srq, CmReq::setSrq),
                i("ExtendedTransportType", 51, 5, 3, CmReq::extendedTransportType, CmReq::setExtendedTransportType),
                i("PrimaryLocalPortLid", 52, 0, 16, CmReq::primaryLocalPortLid, CmReq::setPrimaryLocalPortLid),
                i("PrimaryRemotePortLid", 54, 0, 16, CmReq::primaryRemotePortLid, CmReq::setPrimaryRemotePortLid),
                i("PrimaryFlowLabel", 88, 0, 20, CmReq::primaryFlowLabel, CmReq::setPrimaryFlowLabel),
                i("PrimaryPacketRate", 91, 2, 6, CmReq::primaryPacketRate, CmReq::setPrimaryPacketRate),
                i("PrimaryTrafficClass", 92, 0, 8, CmReq::primaryTrafficClass, CmReq::setPrimaryTrafficClass),
                i("PrimaryHopLimit", 93, 0, 8, CmReq::primaryHopLimit, CmReq::setPrimaryHopLimit),
                i("PrimarySl", 94, 0, 4, CmReq::primarySl, CmReq::setPrimarySl),
                b("PrimarySubnetLocal", 94, 4, CmReq::primarySubnetLocal, CmReq::setPrimarySubnetLocal),
                i("PrimaryLocalAckTimeout", 95, 0, 5, CmReq::primaryLocalAckTimeout,
                        CmReq::setPrimaryLocalAckTimeout),
                i("AlternateLocalPortLid", 96, 0, 16, CmReq::alternateLocalPortLid,
                        CmReq::setAlternateLocalPortLid),
                i("AlternateRemotePortLid", 98, 0, 16, CmReq::alternateRemotePortLid,
                        CmReq::setAlternateRemotePortLid),
                i("AlternateFlowLabel", 132, 0, 20, CmReq::alternateFlowLabel, CmReq::setAlternateFlowLabel),
                i("AlternatePacketRate", 135, 2, 6, CmReq::alternatePacketRate, CmReq::setAlternatePacketRate),
                i("AlternateTrafficClass", 136, 0, 8, CmReq::alternateTrafficClass,
                        CmReq::setAlternateTrafficClass),
                i("AlternateHopLimit", 137, 0, 8, CmReq::alternateHopLimit, CmReq::setAlternateHopLimit),
                i("AlternateSl", 138, 0, 4, CmReq::alternateSl, CmReq::setAlternateSl),
                b("AlternateSubnetLocal", 138, 4, CmReq::alternateSubnetLocal, CmReq::setAlternateSubnetLocal),
                i("AlternateLocalAckTimeout", 139, 0, 5, CmReq::alternateLocalAckTimeout,
                        CmReq::setAlternateLocalAckTimeout),
                b("SapSupported", 139, 5, CmReq::sapSupported, CmReq::setSapSupported)));
        return f;
    }

    static List<Field> rep() {
        return List.of(
                i("LocalCommId", 0, 0, 32, CmRep::localCommId, CmRep::setLocalCommId),
                i("RemoteCommId", 4, 0, 32, CmRep::remoteCommId, CmRep::setRemoteCommId),
                i("LocalQkey", 8, 0, 32, CmRep::localQkey, CmRep::setLocalQkey),
                i("LocalQpn", 12, 0, 24, CmRep::localQpn, CmRep::setLocalQpn),
                i("LocalEeContextNumber", 16, 0, 24, CmRep::localEeContextNumber, CmRep::setLocalEeContextNumber),
                i("StartingPsn", 20, 0, 24, CmRep::startingPsn, CmRep::setStartingPsn),
                i("ResponderResources", 24, 0, 8, CmRep::responderResources, CmRep::setResponderResources),
                i("InitiatorDepth", 25, 0, 8, CmRep::initiatorDepth, CmRep::setInitiatorDepth),
                i("TargetAckDelay", 26, 0, 5, CmRep::targetAckDelay, CmRep::setTargetAckDelay),
                i("FailoverAccepted", 26, 5, 2, CmRep::failoverAccepted, CmRep::setFailoverAccepted),
                b("EndToEndFlowControl", 26, 7, CmRep::endToEndFlowControl, CmRep::setEndToEndFlowControl),
                i("RnrRetryCount", 27, 0, 3, CmRep::rnrRetryCount, CmRep::setRnrRetryCount),
                b("Srq", 27, 3, CmRep::srq, CmRep::setSrq),
                l("LocalCaGuid", 28, CmRep::localCaGuid, CmRep::setLocalCaGuid));
    }

    static List<Field> others() {
        return List.of(
                i("Rtu.LocalCommId", 0, 0, 32, CmRtu::localCommId, CmRtu::setLocalCommId),
                i("Rtu.RemoteCommId", 4, 0, 32, CmRtu::remoteCommId, CmRtu::setRemoteCommId),
                i("Rej.LocalCommId", 0, 0, 32, CmRej::localCommId, CmRej::setLocalCommId),
                i("Rej.RemoteCommId", 4, 0, 32, CmRej::remoteCommId, CmRej::setRemoteCommId),
                i("Rej.MessageRejected", 8, 0, 2, CmRej::messageRejected, CmRej::setMessageRejected),
                i("Rej.RejectedInfoLength", 9, 0, 7, CmRej::rejectedInfoLength, CmRej::setRejectedInfoLength),
                i("Rej.Reason", 10, 0, 16, CmRej::reason, CmRej::setReason),
                i("Mra.LocalCommId", 0, 0, 32, CmMra::localCommId, CmMra::setLocalCommId),
                i("Mra.RemoteCommId", 4, 0, 32, CmMra::remoteCommId, CmMra::setRemoteCommId),
                i("Mra.MessageMraed", 8, 0, 2, CmMra::messageMraed, CmMra::setMessageMraed),
                i("Mra.ServiceTimeout", 9, 0, 5, CmMra::serviceTimeout, CmMra::setServiceTimeout),
                i("Dreq.LocalCommId", 0, 0, 32, CmDreq::localCommId, CmDreq::setLocalCommId),
                i("Dreq.RemoteCommId", 4, 0, 32, CmDreq::remoteCommId, CmDreq::setRemoteCommId),
                i("Dreq.RemoteQpnEecn", 8, 0, 24, CmDreq::remoteQpnEecn, CmDreq::setRemoteQpnEecn),
                i("Drep.LocalCommId", 0, 0, 32, CmDrep::localCommId, CmDrep::setLocalCommId),
                i("Drep.RemoteCommId", 4, 0, 32, CmDrep::remoteCommId, CmDrep::setRemoteCommId),
                i("SidrReq.RequestId", 0, 0, 32, CmSidrReq::requestId, CmSidrReq::setRequestId),
                i("SidrReq.PartitionKey", 4, 0, 16, CmSidrReq::partitionKey, CmSidrReq::setPartitionKey),
                l("SidrReq.ServiceId", 8, CmSidrReq::serviceId, CmSidrReq::setServiceId),
                i("SidrRep.RequestId", 0, 0, 32, CmSidrRep::requestId, CmSidrRep::setRequestId),
                i("SidrRep.Status", 4, 0, 8, CmSidrRep::status, CmSidrRep::setStatus),
                i("SidrRep.AdditionalInformationLength", 5, 0, 8, CmSidrRep::additionalInformationLength,
                        CmSidrRep::setAdditionalInformationLength),
                i("SidrRep.Qpn", 8, 0, 24, CmSidrRep::qpn, CmSidrRep::setQpn),
                l("SidrRep.ServiceId", 12, CmSidrRep::serviceId, CmSidrRep::setServiceId),
                i("SidrRep.Qkey", 20, 0, 32, CmSidrRep::qkey, CmSidrRep::setQkey));
    }

    @TestFactory
    Stream<DynamicTest> everyFieldOwnsExactlyItsBits() {
        return Stream.of(req(), rep(), others()).flatMap(List::stream)
                .map(f -> DynamicTest.dynamicTest(f.name(), () -> check(f)));
    }

    private static MemorySegment mad(byte fill) {
        MemorySegment s = MemorySegment.ofArray(new byte[OFF + Mad.MAD_SIZE + SLACK]);
        s.fill(fill);
        return s;
    }

    private static void check(Field f) {
        long max = f.mask();
        MemorySegment zero = mad((byte) 0);
        f.set().set(zero, OFF, max);
        assertEquals(max, f.get().get(zero, OFF), f.name() + " all ones");
        assertBits(zero, f, true);

        MemorySegment ones = mad((byte) -1);
        assertEquals(max, f.get().get(ones, OFF), f.name() + " reads all ones from all-ones bytes");
        f.set().set(ones, OFF, 0);
        assertEquals(0, f.get().get(ones, OFF), f.name() + " zero");
        assertBits(ones, f, false);

        MemorySegment masked = mad((byte) 0);
        f.set().set(masked, OFF, -1L);
        assertBits(masked, f, true);

        Random rnd = new Random(f.name().hashCode());
        MemorySegment r = mad((byte) 0x5A);
        for (int k = 0; k < 64; k++) {
            long v = rnd.nextLong() & max;
            f.set().set(r, OFF, v);
            assertEquals(v, f.get().get(r, OFF), f.name() + " round trip of 0x" + Long.toHexString(v));
        }
        f.set().set(r, OFF, 1);
        assertEquals(1, f.get().get(r, OFF), f.name() + " 1");
    }

    /** The field's bits are {@code fieldValue}, every other bit of the buffer the opposite. */
    private static void assertBits(MemorySegment s, Field f, boolean fieldValue) {
        long first = f.firstBit();
        for (long bit = 0; bit < s.byteSize() * 8; bit++) {
            boolean inField = bit >= first && bit < first + f.width();
            boolean set = (s.get(Layouts.BYTE, bit / 8) >> (7 - bit % 8) & 1) != 0;
            if (set != (inField == fieldValue)) {
                throw new AssertionError(f.name() + ": bit " + (bit % 8) + " of MAD byte " + (bit / 8 - OFF)
                        + (inField ? " (in the field)" : " (outside the field)") + " is " + (set ? 1 : 0));
            }
        }
    }
}
