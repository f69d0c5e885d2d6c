// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The test contract of the read tests: a value a transaction changes, views with several outputs and tuples, a
/// pure function, reverts with a reason, a panic and a custom error, and answers as large as asked.
contract Gauge {
    struct Reading {
        uint64 at;
        int128 value;
        string label;
    }

    uint256 public level;
    address public owner;

    error TooHigh(uint256 level, uint256 limit);

    constructor() {
        owner = msg.sender;
    }

    function setLevel(uint256 value) external {
        level = value;
    }

    function snapshot()
        external
        view
        returns (uint256 current, address by, bool odd, bytes32 tag, bytes memory blob, string memory note)
    {
        return (level, owner, level % 2 == 1, keccak256("gauge"), hex"c0ffee", "level");
    }

    function reading(string calldata label) external view returns (Reading memory) {
        return Reading(uint64(block.number), -int128(int256(level)), label);
    }

    function pairs(uint256 n) external pure returns (uint256[2][] memory out, int8[] memory signs) {
        out = new uint256[2][](n);
        signs = new int8[](n);
        for (uint256 i = 0; i < n; i++) {
            out[i] = [i, i * i];
            signs[i] = i % 2 == 0 ? int8(1) : int8(-1);
        }
    }

    function add(int256 a, int256 b) external pure returns (int256) {
        return a + b;
    }

    function checked(uint256 limit) external view returns (uint256) {
        require(limit > 0, "limit must be positive");
        if (level > limit) revert TooHigh(level, limit);
        return level;
    }

    function ratio(uint256 a, uint256 b) external pure returns (uint256) {
        return a / b;
    }

    function blob(uint256 size) external pure returns (bytes memory) {
        return new bytes(size);
    }

    function spin() external pure returns (uint256 n) {
        while (true) n++;
    }
}
