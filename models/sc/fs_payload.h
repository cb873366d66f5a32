/*
 * fs_payload: what every target of models/sc refuses of a generic payload, in one place, so that
 * they answer the same initiator the same way: byte enables where the model has no byte mask
 * (BYTE_ENABLE_ERROR), and a streaming width below the data length (BURST_ERROR: no target here
 * streams, every transfer is one burst at consecutive addresses). The cores' DMA port does take
 * byte enables: fs_strobe turns them into a beat's byte strobes.
 */
#ifndef MODELS_SC_FS_PAYLOAD_H
#define MODELS_SC_FS_PAYLOAD_H

#include <cstdint>

#include <tlm>

namespace fs
{

/* True if a target takes tx's shape; otherwise false with the error response set. byte_enables:
 * whether the target takes byte enables. */
inline bool fs_payload_ok(tlm::tlm_generic_payload &tx, bool byte_enables)
{
    if (!byte_enables && tx.get_byte_enable_ptr()) {
        tx.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return false;
    }
    if (tx.get_streaming_width() < tx.get_data_length()) {
        tx.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return false;
    }
    return true;
}

/* The byte strobes of 8-byte beat `beat` of tx: bit b is byte b's enable (0xff without byte
 * enables; the enable pattern repeats every byte_enable_length bytes, as TLM-2.0 defines it). */
inline uint8_t fs_strobe(const tlm::tlm_generic_payload &tx, uint64_t beat)
{
    const unsigned char *be = tx.get_byte_enable_ptr();
    unsigned n = tx.get_byte_enable_length();
    uint8_t s = 0;
    if (!be)
        return 0xff;
    for (unsigned b = 0; b < 8; b++)
        s |= (uint8_t)((be[(beat * 8 + b) % n] == TLM_BYTE_ENABLED) << b);
    return s;
}

} // namespace fs

#endif
