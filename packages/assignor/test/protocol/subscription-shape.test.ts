import { AssignerProtocol } from 'kafkajs';
import { decodeMember } from '@load-aware/assignor/internal';
import { subscriptionShapeProblem } from '../../src/protocol/subscription-shape';

/** What `pnpm fuzz` seed 11333 sent: version 0x4522, a count of 33,159,439, then a length of -29,182. */
const FORGED = Buffer.from('452201f9f90f8e02fa0c', 'hex');

describe('subscription shape', () => {
  it('passes every subscription KafkaJS encodes, with and without topics and userData', () => {
    for (const topics of [[], ['orders'], ['a', 'b-c.d', 'x'.repeat(249)]]) {
      for (const userData of [Buffer.alloc(0), Buffer.from('load-aware')]) {
        const encoded = AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData });
        expect(subscriptionShapeProblem(encoded)).toBeUndefined();
      }
    }
  });

  it('refuses a topic count the bytes cannot hold, a negative length and a topic running past the end', () => {
    expect(subscriptionShapeProblem(FORGED)).toMatch(/topic count 33159439 does not fit in 10 bytes/);
    expect(subscriptionShapeProblem(Buffer.from('0000' + '00000001' + 'fffe', 'hex'))).toMatch(/length -2/);
    expect(subscriptionShapeProblem(Buffer.from('0000' + '00000001' + 'ffff', 'hex'))).toMatch(/length -1/);
    expect(subscriptionShapeProblem(Buffer.from('0000' + '00000001' + '0005' + '6162', 'hex'))).toMatch(/ends past/);
    expect(subscriptionShapeProblem(Buffer.from('0000' + '00000002' + '0001' + '61', 'hex'))).toMatch(/does not fit/);
    expect(subscriptionShapeProblem(Buffer.from('0000' + '00000002' + '0000' + '0000', 'hex'))).toBeUndefined();
    expect(subscriptionShapeProblem(Buffer.from('0000ffff', 'hex'))).toMatch(/too short/);
  });

  it("makes the leader treat the forged metadata as unreadable without handing it to KafkaJS's decoder", () => {
    const decode = jest.spyOn(AssignerProtocol.MemberMetadata, 'decode');
    try {
      const member = decodeMember({ memberId: 'm-forged', memberMetadata: FORGED });
      expect(member.topics).toBeUndefined();
      expect(member.instanceId).toBe('member:m-forged');
      expect(decode).not.toHaveBeenCalled();
    } finally {
      decode.mockRestore();
    }
  });
});
